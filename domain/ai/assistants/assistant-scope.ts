/**
 * @module An assistant's scope: the centre data it may see. `tenant` is every location of the tenant;
 * `location:<loc_id>` is one location. Agents and tools filter every record they read by {@link dataScopeOf}, on top of
 * the tenant's row-level security, so an assistant scoped to one location never sees another's children or bookings.
 */
import type { UnitOfWork } from '../../../infra/unit-of-work.ts'
import { validationError } from '../../errors.ts'

export const ASSISTANT_SCOPE_PATTERN = /^(tenant|location:[A-Za-z0-9_-]{1,64})$/

/** What an assistant may see, resolved. */
export interface AssistantDataScope {
  tenantId: string
  /** The one location the assistant sees; null for the whole tenant. */
  locationId: string | null
}

/** The location of a scope string, or null for `tenant`. */
export const locationOfScope = (scope: string): string | null =>
  scope.startsWith('location:') ? scope.slice('location:'.length) : null

/**
 * Checks a scope against the tenant's locations.
 * @returns the scope's location id (null for `tenant`)
 * @throws AppError `validation_error` (`scope`, `not_found`) for a location the tenant does not have
 */
export async function resolveAssistantScope({ tx, tenantId }: UnitOfWork, scope: string): Promise<string | null> {
  const locationId = locationOfScope(scope)
  if (locationId === null) return null
  const location = await tx.location.findFirst({ where: { id: locationId, tenantId }, select: { id: true } })
  if (!location)
    throw validationError([{ path: 'scope', code: 'not_found', message: `No location with id "${locationId}".` }])
  return location.id
}

/** The data scope of an assistant row. */
export const dataScopeOf = (assistant: { tenantId: string; locationId: string | null }): AssistantDataScope => ({
  tenantId: assistant.tenantId,
  locationId: assistant.locationId,
})

/**
 * The Prisma `where` fragment that keeps a query within a data scope, for models with `tenantId` and `locationId`.
 * @example tx.child.findMany({ where: { ...scopeWhere(scope), archivedAt: null } })
 */
export const scopeWhere = (scope: AssistantDataScope) => ({
  tenantId: scope.tenantId,
  ...(scope.locationId ? { locationId: scope.locationId } : {}),
})
