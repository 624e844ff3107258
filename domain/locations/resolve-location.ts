/**
 * @module Which location a new record belongs to: the one named, or the tenant's only location.
 */
import type { UnitOfWork } from '../../infra/unit-of-work.ts'
import { validationError } from '../errors.ts'

/**
 * Resolves a location of the unit's tenant.
 * @param locationId - the location asked for, if any
 * @throws AppError `validation_error` when it is not the tenant's, or when none was named and there are several
 */
export async function resolveLocation({ tx, tenantId }: UnitOfWork, locationId: string | undefined) {
  if (locationId) {
    const location = await tx.location.findFirst({ where: { id: locationId, tenantId } })
    if (!location) {
      throw validationError([{ path: 'locationId', code: 'not_found', message: 'No location with this id.' }])
    }
    return location
  }
  const locations = await tx.location.findMany({ where: { tenantId }, take: 2, orderBy: { id: 'asc' } })
  if (locations.length !== 1 || !locations[0]) {
    throw validationError([
      { path: 'locationId', code: 'required', message: 'This tenant has several locations: name one.' },
    ])
  }
  return locations[0]
}
