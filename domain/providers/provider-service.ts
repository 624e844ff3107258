/**
 * @module Providers (therapists). Enough for booking now; disciplines, credentials and working hours come with the
 * care-records work.
 */
import type { UnitOfWork } from '../../infra/unit-of-work.ts'
import { notFound, validationError } from '../errors.ts'
import { newId } from '../ids.ts'
import { resolveLocation } from '../locations/resolve-location.ts'
import { afterCursor, toPage } from '../pagination.ts'
import { isValidTimeZone } from '../time.ts'

export interface CreateProviderInput {
  name: string
  timeZone: string
  locationId?: string
}

/** Creates a provider at the named location or the tenant's only one. */
export async function createProvider(uow: UnitOfWork, input: CreateProviderInput) {
  if (!isValidTimeZone(input.timeZone)) {
    throw validationError([{ path: 'timeZone', code: 'invalid_time_zone', message: 'Not an IANA time zone.' }])
  }
  const location = await resolveLocation(uow, input.locationId)
  return uow.tx.provider.create({
    data: {
      id: newId('provider'),
      tenantId: uow.tenantId,
      locationId: location.id,
      name: input.name,
      timeZone: input.timeZone,
    },
  })
}

/** One provider of the unit's tenant. @throws AppError `not_found` */
export async function getProvider({ tx, tenantId }: UnitOfWork, id: string) {
  const provider = await tx.provider.findFirst({ where: { id, tenantId } })
  if (!provider) throw notFound('provider', id)
  return provider
}

/** A page of the tenant's providers in creation order. */
export async function listProviders({ tx, tenantId }: UnitOfWork, query: { limit: number; cursor?: string }) {
  const after = afterCursor(query.cursor)
  const rows = await tx.provider.findMany({
    where: { tenantId, ...(after ? { id: { gt: after } } : {}) },
    orderBy: { id: 'asc' },
    take: query.limit + 1,
  })
  return toPage(rows, query.limit)
}
