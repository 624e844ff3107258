/**
 * @module A provider's writable fields: one schema for create and for the outcome of a PATCH (merge-patch.ts), so a
 * PATCH can never leave a provider that a POST would have refused; plus the checks zod cannot make alone (time zone,
 * language tags, locations of the tenant), which answer with their own field codes.
 */
import { z } from '@hono/zod-openapi'
import { LOCATION_ID_RULE } from '../locations/resolve-location.ts'
import type { UnitOfWork } from '../../infra/unit-of-work.ts'
import { DisciplineSchema } from '../catalogue/disciplines.ts'
import { WeeklyHoursSchema, normaliseWeeklyHours, type WeeklyHours } from '../availability/weekly-hours.ts'
import { validationError, type FieldError } from '../errors.ts'
import { isValidTimeZone } from '../time.ts'
import { AgeGroupSchema } from './age-groups.ts'
import { CredentialsSchema, licenceExpiryOf, type Credential } from './credentials.ts'
import { canonicalLanguage } from './languages.ts'
import { resourceId } from '../id-schema.ts'
import { orNull } from '../nullable.ts'

const unique = <T>(values: readonly T[]) => new Set(values).size === values.length

/** The writable fields. Optional ones may be absent; `weeklyHours` absent or null is an open schedule. */
export const ProviderFieldsSchema = z.object({
  name: z.string().trim().min(1).max(200),
  email: z.string().trim().email().max(320).optional(),
  timeZone: z.string().min(1).max(64),
  locationId: resourceId('location')
    .optional()
    .openapi({ description: `The primary location. ${LOCATION_ID_RULE}` }),
  locationIds: z.array(resourceId('location')).max(50).refine(unique, 'Locations must not repeat').optional(),
  disciplines: z.array(DisciplineSchema).max(20).refine(unique, 'Disciplines must not repeat').optional(),
  languages: z.array(z.string().min(2).max(35)).max(20).optional(),
  ageGroups: z.array(AgeGroupSchema).refine(unique, 'Age groups must not repeat').optional(),
  telehealth: z.boolean().optional(),
  weeklyHours: orNull(WeeklyHoursSchema).optional(),
  credentials: CredentialsSchema.optional(),
})

export type ProviderFields = z.infer<typeof ProviderFieldsSchema>

/** The provider's columns as validated fields produce them. */
export interface ProviderColumns {
  name: string
  email: string | null
  timeZone: string
  locationId: string
  /** Every location, the primary one first. */
  locationIds: string[]
  disciplines: string[]
  languages: string[]
  ageGroups: string[]
  telehealth: boolean
  weeklyHours: WeeklyHours | null
  credentials: Credential[]
  licenceExpiresOn: Date | null
}

/**
 * Checks what the schema cannot and derives the columns.
 * @param fields - fields that passed {@link ProviderFieldsSchema}
 * @param defaultLocationId - the primary location when `fields.locationId` is absent (the tenant's only one)
 * @throws AppError `validation_error`: `invalid_time_zone`, `invalid_language`, `not_found` (a location)
 */
export async function toProviderColumns(
  { tx, tenantId }: UnitOfWork,
  fields: ProviderFields,
  defaultLocationId: () => Promise<string>
): Promise<ProviderColumns> {
  const errors: FieldError[] = []
  if (!isValidTimeZone(fields.timeZone)) {
    errors.push({ path: 'timeZone', code: 'invalid_time_zone', message: 'Not an IANA time zone.' })
  }
  const languages: string[] = []
  for (const [index, tag] of (fields.languages ?? []).entries()) {
    const canonical = canonicalLanguage(tag)
    if (!canonical)
      errors.push({ path: `languages.${index}`, code: 'invalid_language', message: 'Not a BCP 47 language tag.' })
    else if (!languages.includes(canonical)) languages.push(canonical)
  }
  const primary = fields.locationId ?? (await defaultLocationId())
  const locationIds = [primary, ...(fields.locationIds ?? []).filter((id) => id !== primary)]
  const found = await tx.location.findMany({ where: { tenantId, id: { in: locationIds } }, select: { id: true } })
  const known = new Set(found.map((l) => l.id))
  for (const [index, id] of locationIds.entries()) {
    if (known.has(id)) continue
    const path =
      index === 0 && fields.locationId ? 'locationId' : `locationIds.${(fields.locationIds ?? []).indexOf(id)}`
    errors.push({ path, code: 'not_found', message: 'No location with this id.' })
  }
  if (errors.length) throw validationError(errors)
  const credentials = fields.credentials ?? []
  return {
    name: fields.name,
    email: fields.email ?? null,
    timeZone: fields.timeZone,
    locationId: primary,
    locationIds,
    disciplines: fields.disciplines ?? [],
    languages,
    ageGroups: fields.ageGroups ?? [],
    telehealth: fields.telehealth ?? false,
    weeklyHours: fields.weeklyHours ? normaliseWeeklyHours(fields.weeklyHours) : null,
    credentials,
    licenceExpiresOn: licenceExpiryOf(credentials),
  }
}
