/** @module Schemas of /v1/providers: request bodies, the provider as answered, list filters. */
import { z } from '@hono/zod-openapi'
import { DisciplineSchema } from '../../../domain/catalogue/disciplines.ts'
import { WeeklyHoursPatchSchema, WeeklyHoursSchema } from '../../../domain/availability/weekly-hours.ts'
import { AgeGroupSchema } from '../../../domain/providers/age-groups.ts'
import { CredentialSchema } from '../../../domain/providers/credentials.ts'
import { ProviderFieldsSchema } from '../../../domain/providers/provider-fields.ts'
import { INITIAL_ONBOARDING_STATUSES, PROVIDER_SORTS } from '../../../domain/providers/provider-service.ts'
import { listQuerySchema } from '../../../domain/listing.ts'
import { UtcDateTime } from '../../openapi/schemas.ts'
import { resourceId } from '../../../domain/id-schema.ts'
import { orNull } from '../../../domain/nullable.ts'

export const ONBOARDING_STATUSES = ['INVITED', 'IN_REVIEW', 'APPROVED', 'SUSPENDED', 'OFFBOARDED'] as const

const described = {
  name: ProviderFieldsSchema.shape.name.openapi({ example: 'Dana Whitfield, CCC-SLP' }),
  timeZone: ProviderFieldsSchema.shape.timeZone.openapi({
    description: 'IANA time zone; weekly hours are read in it',
    example: 'America/Chicago',
  }),
  locationId: ProviderFieldsSchema.shape.locationId.openapi({
    description: "The primary location, whose policies apply to bookings; defaults to the tenant's only location",
  }),
  locationIds: ProviderFieldsSchema.shape.locationIds.openapi({
    description: 'Every location the provider works at; the primary one is always included',
  }),
  languages: ProviderFieldsSchema.shape.languages.openapi({ description: 'BCP 47 tags', example: ['en', 'es-MX'] }),
  weeklyHours: orNull(WeeklyHoursSchema).optional(),
}

export const ProviderCreate = z
  .strictObject({
    ...ProviderFieldsSchema.shape,
    ...described,
    onboardingStatus: z
      .enum(INITIAL_ONBOARDING_STATUSES)
      .optional()
      .openapi({
        description:
          'APPROVED (the default) is bookable at once. INVITED or IN_REVIEW records a provider still to be onboarded ' +
          'and starts nothing: `POST /v1/providers/{id}/onboarding` starts the onboarding workflow.',
      }),
  })
  .openapi('ProviderCreate')

export const ProviderPatch = z
  .strictObject({
    name: described.name.optional(),
    email: ProviderFieldsSchema.shape.email.unwrap().nullable().optional(),
    timeZone: described.timeZone.optional(),
    locationId: ProviderFieldsSchema.shape.locationId.unwrap().optional(),
    locationIds: ProviderFieldsSchema.shape.locationIds.unwrap().optional(),
    disciplines: ProviderFieldsSchema.shape.disciplines.unwrap().optional(),
    languages: ProviderFieldsSchema.shape.languages.unwrap().optional(),
    ageGroups: ProviderFieldsSchema.shape.ageGroups.unwrap().optional(),
    telehealth: z.boolean().optional(),
    weeklyHours: WeeklyHoursPatchSchema.nullable().optional().openapi({
      description: 'Merged per weekday; a weekday set to null becomes a day off; null makes the schedule open',
    }),
    credentials: ProviderFieldsSchema.shape.credentials.unwrap().optional(),
  })
  .openapi('ProviderPatch', { description: 'A JSON merge patch (RFC 7396) of the writable fields' })

export const Provider = z
  .object({
    id: resourceId('provider'),
    name: z.string(),
    email: z.string().nullable(),
    timeZone: z.string(),
    locationId: z.string().openapi({ description: 'The primary location' }),
    locationIds: z.array(z.string()),
    disciplines: z.array(DisciplineSchema),
    languages: z.array(z.string()),
    ageGroups: z.array(AgeGroupSchema),
    telehealth: z.boolean(),
    weeklyHours: orNull(WeeklyHoursSchema).openapi({ description: 'null: open schedule, bookable at any time' }),
    credentials: z.array(CredentialSchema),
    licenceExpiresOn: z
      .string()
      .nullable()
      .openapi({ format: 'date', description: 'Earliest expiry of a LICENSE credential' }),
    onboardingStatus: z.enum(ONBOARDING_STATUSES),
    bookable: z.boolean().openapi({ description: 'Only APPROVED providers can be booked' }),
    approvedAt: UtcDateTime.nullable(),
    offboardedAt: UtcDateTime.nullable(),
    createdAt: UtcDateTime,
    updatedAt: UtcDateTime,
  })
  .openapi('Provider')

const booleanParam = z
  .enum(['true', 'false'])
  .transform((v) => v === 'true')
  .optional()

export const ProviderListQuery = listQuerySchema(PROVIDER_SORTS, 'createdAt').extend({
  discipline: DisciplineSchema.optional(),
  locationId: z
    .string()
    .max(64)
    .optional()
    .openapi({ description: 'Providers working at this location (primary or not)' }),
  language: z.string().min(2).max(35).optional().openapi({ description: 'BCP 47 tag; `es` also finds `es-MX`' }),
  ageGroup: AgeGroupSchema.optional(),
  onboardingStatus: z.enum(ONBOARDING_STATUSES).optional(),
  telehealth: booleanParam.openapi({ description: 'true or false' }),
})
