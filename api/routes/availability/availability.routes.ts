/** @module Route table of /v1/availability: real-time slot checking since release 2.2.0
 * (docs/availability.md). */
import { z } from '@hono/zod-openapi'
import { DisciplineSchema } from '../../../domain/catalogue/disciplines.ts'
import { DEFAULT_PROVIDERS, MAX_PROVIDERS, MAX_RANGE_DAYS } from '../../../domain/availability/availability-service.ts'
import { MAX_DURATION_MINUTES } from '../../../domain/appointments/appointment-rules.ts'
import { COMMON_ERRORS, problemResponses, protectedRoute } from '../../openapi/routes.ts'
import { OffsetDateTime } from '../../openapi/schemas.ts'

const param = (name: string) => ({ param: { name, in: 'query' as const } })

export const AvailabilityQuery = z
  .object({
    providerId: z
      .string()
      .min(1)
      .max(64)
      .optional()
      .openapi({ ...param('providerId'), description: 'One provider' }),
    providerIds: z
      .string()
      .max(64 * MAX_PROVIDERS)
      .optional()
      .openapi({ ...param('providerIds'), description: `Comma-separated provider ids (at most ${MAX_PROVIDERS})` }),
    discipline: DisciplineSchema.optional().openapi({
      ...param('discipline'),
      description: 'APPROVED providers practising it',
    }),
    locationId: z
      .string()
      .min(1)
      .max(64)
      .optional()
      .openapi({
        ...param('locationId'),
        description:
          "Providers working at this location; its buffer and notice apply (else each provider's primary location's)",
      }),
    language: z
      .string()
      .min(2)
      .max(35)
      .optional()
      .openapi({ ...param('language'), description: 'BCP 47 tag; `es` also finds `es-MX`' }),
    from: OffsetDateTime.openapi({ ...param('from'), format: 'date-time', example: '2026-12-01T00:00:00-06:00' }),
    to: OffsetDateTime.openapi({
      ...param('to'),
      format: 'date-time',
      example: '2026-12-08T00:00:00-06:00',
      description: `Slots start before this instant; at most ${MAX_RANGE_DAYS} days after from`,
    }),
    durationMinutes: z.coerce
      .number()
      .int()
      .min(5)
      .max(MAX_DURATION_MINUTES)
      .openapi({ ...param('durationMinutes'), example: 60 }),
    stepMinutes: z.coerce
      .number()
      .int()
      .min(5)
      .max(240)
      .optional()
      .openapi({
        ...param('stepMinutes'),
        description: 'Grid of slot starts; default the smaller of 15 and the duration',
      }),
    limit: z.coerce
      .number()
      .int()
      .min(1)
      .max(MAX_PROVIDERS)
      .default(DEFAULT_PROVIDERS)
      .openapi({
        ...param('limit'),
        description: `Providers per answer when selecting by filters, 1 to ${MAX_PROVIDERS}`,
      }),
    cursor: z
      .string()
      .max(512)
      .optional()
      .openapi({ ...param('cursor'), description: 'The `nextCursor` of the previous answer' }),
  })
  .refine((q) => !(q.providerId && q.providerIds), {
    message: 'Give providerId or providerIds, not both',
    path: ['providerIds'],
  })
  .refine((q) => !((q.providerId || q.providerIds) && (q.discipline || q.language)), {
    message: 'discipline and language select providers; they do not combine with providerId or providerIds',
    path: ['discipline'],
  })

export const Slot = z
  .object({
    startsAt: z.string().openapi({ format: 'date-time', example: '2026-12-01T09:00:00-06:00' }),
    endsAt: z.string().openapi({ format: 'date-time', example: '2026-12-01T10:00:00-06:00' }),
    timeZone: z
      .string()
      .openapi({ description: "The provider's IANA time zone; startsAt and endsAt carry its offset" }),
  })
  .openapi('Slot')

export const ProviderAvailability = z
  .object({
    providerId: z.string(),
    name: z.string(),
    timeZone: z.string(),
    locationId: z.string().openapi({ description: 'The location whose policies (buffer, notice) were applied' }),
    bookable: z.boolean().openapi({ description: 'false: the provider is not APPROVED, and has no slots' }),
    slots: z.array(Slot),
  })
  .openapi('ProviderAvailability')

export const getAvailabilityRoute = protectedRoute('bookings.read', {
  method: 'get',
  path: '/v1/availability',
  tags: ['Availability'],
  summary: 'Bookable slots of one or more providers',
  description:
    'For each provider (one, a list, or the APPROVED providers matching the filters), the slots of `durationMinutes` ' +
    "that start in [from, to) and that booking would accept now: inside the provider's weekly hours (in their time " +
    "zone, across daylight-saving changes), outside time off, clear of CONFIRMED appointments by the location's " +
    'buffer, and after its minimum notice. A slot just booked is gone on the next call. See docs/availability.md.',
  request: { query: AvailabilityQuery },
  responses: {
    200: {
      description: 'Slots per provider, in provider id order',
      content: {
        'application/json': {
          schema: z
            .object({ data: z.array(ProviderAvailability), nextCursor: z.string().nullable() })
            .openapi('AvailabilityPage'),
        },
      },
    },
    ...problemResponses(400, 404, ...COMMON_ERRORS),
  },
})
