/** @module Route table of /v1/therapists: matching (spec row 6) and the matching profile it scores on. */
import { z } from '@hono/zod-openapi'
import { EXCLUSION_REASONS } from '../../../domain/therapists/match-filters.ts'
import { MatchProfileFieldsSchema } from '../../../domain/therapists/match-profile-service.ts'
import { MatchRequestSchema } from '../../../domain/therapists/match-request.ts'
import { MATCH_FACTORS, MATCH_WEIGHTS } from '../../../domain/therapists/match-scoring.ts'
import { mergePatchSchema } from '../../../domain/merge-patch.ts'
import { COMMON_ERRORS, problemResponses, protectedRoute } from '../../openapi/routes.ts'
import { IdParam, UtcDateTime } from '../../openapi/schemas.ts'

export const MatchReason = z
  .object({
    factor: z.enum(MATCH_FACTORS as [string, ...string[]]),
    weight: z.number().int(),
    applicable: z.boolean().openapi({ description: 'false: the request gave no basis for it; left out of the score' }),
    value: z.number().openapi({ description: 'Share of the weight earned, 0 to 1' }),
    points: z.number().openapi({ description: 'weight × value' }),
    detail: z.string(),
  })
  .openapi('MatchReason')

export const MatchSlot = z
  .object({
    startsAt: z.string().openapi({ format: 'date-time', example: '2026-12-01T15:00:00-06:00' }),
    endsAt: z.string().openapi({ format: 'date-time', example: '2026-12-01T16:00:00-06:00' }),
    timeZone: z.string().openapi({ description: "The provider's IANA zone; startsAt and endsAt carry its offset" }),
    inPreferredTimes: z.boolean(),
  })
  .openapi('MatchSlot')

export const ProviderMatch = z
  .object({
    rank: z.number().int(),
    providerId: z.string(),
    name: z.string(),
    score: z.number().openapi({ description: 'Share of the applicable weight earned, 0 to 100 (one decimal)' }),
    mode: z.enum(['IN_PERSON', 'TELEHEALTH']),
    locationId: z
      .string()
      .openapi({ description: 'Where (in person), or the provider’s primary location (telehealth)' }),
    reasons: z.array(MatchReason),
    nextSlots: z.array(MatchSlot).openapi({ description: 'Bookable slots: preferred ones first, then the earliest' }),
  })
  .openapi('ProviderMatch')

const exclusionCounts = Object.fromEntries(
  Object.keys(EXCLUSION_REASONS).map((reason) => [reason, z.number().int().optional()])
) as Record<keyof typeof EXCLUSION_REASONS, z.ZodOptional<z.ZodNumber>>

export const MatchResult = z
  .object({
    needs: z.object({
      discipline: z.string(),
      ageGroup: z.string().nullable(),
      languages: z.array(z.string()),
      conditionCount: z.number().int().openapi({ description: 'Diagnoses and focus areas considered (not echoed)' }),
      payer: z.string().nullable(),
      mode: z.enum(['IN_PERSON', 'TELEHEALTH', 'ANY']),
      locationId: z.string().nullable(),
      from: UtcDateTime,
      to: UtcDateTime,
      durationMinutes: z.number().int(),
    }),
    weights: z.object(
      // Integers: a `number` enum makes openapi-generator's Java client emit code that does not compile.
      Object.fromEntries(
        MATCH_FACTORS.map((f) => [
          f,
          z.literal(MATCH_WEIGHTS[f]).openapi({ type: 'integer', enum: [MATCH_WEIGHTS[f]] }),
        ])
      ) as Record<string, z.ZodLiteral<number>>
    ),
    considered: z.number().int().openapi({ description: 'Providers of the tenant looked at' }),
    excluded: z
      .object(exclusionCounts)
      .openapi({ description: 'Providers left out, by the first requirement they failed' }),
    data: z.array(ProviderMatch),
  })
  .openapi('TherapistMatchResult')

export const matchTherapistsRoute = protectedRoute('matching', {
  method: 'post',
  path: '/v1/therapists/match',
  tags: ['Therapist matching'],
  summary: 'Match therapists to a child',
  description:
    'Ranks the bookable providers (APPROVED, not offboarded) who practise the discipline and can see the child in ' +
    'the setting asked for, by an explainable weighted score, with their next bookable slots. Deterministic: equal ' +
    'scores are ordered by first slot, then provider id. See docs/marketplace.md.',
  request: { body: { required: true, content: { 'application/json': { schema: MatchRequestSchema } } } },
  responses: {
    200: { description: 'The ranked providers', content: { 'application/json': { schema: MatchResult } } },
    ...problemResponses(400, 409, 413, 415, 422, ...COMMON_ERRORS),
  },
})

export const MatchProfile = z
  .object({
    providerId: z.string(),
    specialties: z.array(z.string()),
    payers: z.array(z.string()),
    acceptingNewClients: z.boolean(),
    updatedAt: UtcDateTime.nullable().openapi({ description: 'null: never set (the defaults)' }),
  })
  .openapi('MatchProfile')

export const MatchProfilePatch = mergePatchSchema(MatchProfileFieldsSchema).openapi('MatchProfilePatch', {
  description: 'A JSON merge patch (RFC 7396); arrays are replaced whole, null restores the default.',
})

const ProviderId = IdParam('provider')

export const getMatchProfileRoute = protectedRoute('providers.read', {
  method: 'get',
  path: '/v1/therapists/{id}/match-profile',
  tags: ['Therapist matching'],
  summary: "Read a provider's matching profile",
  request: { params: ProviderId },
  responses: {
    200: { description: 'The profile', content: { 'application/json': { schema: MatchProfile } } },
    ...problemResponses(404, ...COMMON_ERRORS),
  },
})

export const patchMatchProfileRoute = protectedRoute('providers', {
  method: 'patch',
  path: '/v1/therapists/{id}/match-profile',
  tags: ['Therapist matching'],
  summary: "Update a provider's matching profile (JSON merge patch)",
  request: {
    params: ProviderId,
    body: {
      required: true,
      content: {
        'application/merge-patch+json': { schema: MatchProfilePatch },
        'application/json': { schema: MatchProfilePatch },
      },
    },
  },
  responses: {
    200: { description: 'The profile', content: { 'application/json': { schema: MatchProfile } } },
    ...problemResponses(400, 404, 409, 413, 415, 422, ...COMMON_ERRORS),
  },
})
