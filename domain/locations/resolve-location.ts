/**
 * @module Which location a new record belongs to: the one named, or the tenant's only location. A tenant that opens
 * a second centre makes `locationId` required on every create that takes one (there is no "main" location to fall
 * back on), so the error lists the locations to choose from, and the rule is documented from {@link LOCATION_ID_RULE}.
 */
import type { UnitOfWork } from '../../infra/unit-of-work.ts'
import { validationError } from '../errors.ts'

/**
 * The rule as integrators read it, in the OpenAPI description of every `locationId` it applies to and of the create
 * operations: one text, so the documentation cannot drift between resources.
 */
export const LOCATION_ID_RULE =
  'Optional while the tenant has one location, which is then the default. Once the tenant has two or more, it is ' +
  'required: without it the create answers 400 `validation_error` with an `errors[]` entry for `locationId` (code ' +
  '`required`) that lists the locations (id and name); `GET /v1/locations` lists them too.'

/** How many locations the error names; a tenant with more is told how many it has and where to list them. */
const LISTED_LOCATIONS = 20

/**
 * Resolves a location of the unit's tenant.
 * @param locationId - the location asked for, if any
 * @throws AppError `validation_error` when it is not the tenant's, or when none was named and there are several
 *   (the detail and the `locationId` entry name them)
 */
export async function resolveLocation({ tx, tenantId }: UnitOfWork, locationId: string | undefined) {
  if (locationId) {
    const location = await tx.location.findFirst({ where: { id: locationId, tenantId } })
    if (!location) {
      throw validationError([{ path: 'locationId', code: 'not_found', message: 'No location with this id.' }])
    }
    return location
  }
  // Every location, not two: the error names them all (a tenant has a handful of centres, not thousands).
  const locations = await tx.location.findMany({ where: { tenantId }, orderBy: { id: 'asc' } })
  if (locations.length === 0) {
    const message = 'This tenant has no location yet: create one with POST /v1/locations.'
    throw validationError([{ path: 'locationId', code: 'required', message }])
  }
  if (locations.length > 1 || !locations[0]) {
    const listed = locations.slice(0, LISTED_LOCATIONS).map((l) => `${l.id} (${l.name})`)
    const more = locations.length > LISTED_LOCATIONS ? `, and ${locations.length - LISTED_LOCATIONS} more` : ''
    const message =
      `This tenant has ${locations.length} locations, so locationId is required: ${listed.join(', ')}${more}. ` +
      'GET /v1/locations lists them.'
    throw validationError(
      [{ path: 'locationId', code: 'required', message }],
      "locationId is required once a tenant has more than one location; errors[] lists this tenant's locations."
    )
  }
  return locations[0]
}
