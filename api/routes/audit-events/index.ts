/** @module /v1/audit-events: thin handlers over the audit trail. */
import { OpenAPIHono, type z } from '@hono/zod-openapi'
import type { TenantAuditEvent as AuditRecord } from '../../../domain/audit/audit-event.ts'
import { listAuditEvents } from '../../../domain/audit/list-audit-events.ts'
import { verifyTenantChain } from '../../../domain/audit/verify-chain.ts'
import type { AppEnv } from '../../app-env.ts'
import { validationHook } from '../../openapi/validation-hook.ts'
import { listAuditEventsRoute, verifyAuditChainRoute, type AuditEvent } from './audit-events.routes.ts'

/**
 * `seq` is a bigint in the database and a JSON number here: exact up to 2^53, which no chain will reach. The chain
 * fields are null for a record the sealer has not reached yet.
 */
export const toAuditEvent = (e: AuditRecord): z.infer<typeof AuditEvent> => ({
  id: e.id,
  tenantId: e.tenantId,
  seq: e.seq === null ? null : Number(e.seq),
  occurredAt: e.occurredAt.toISOString(),
  actorType: e.actorType,
  actorId: e.actorId,
  locationId: e.locationId,
  method: e.method,
  route: e.route,
  path: e.path,
  resourceType: e.resourceType,
  resourceId: e.resourceId,
  status: e.status,
  requestId: e.requestId,
  clientIp: e.clientIp,
  userAgent: e.userAgent,
  latencyMs: e.latencyMs,
  prevHash: e.prevHash,
  hash: e.hash,
})

export function auditEventRoutes() {
  return (
    new OpenAPIHono<AppEnv>({ defaultHook: validationHook })
      // Registered before any /v1/audit-events/{id} could be, so `verify` is never taken for an id.
      // Seals in the request's own unit (holding the tenant's chain lock until it ends), then walks the chain.
      .openapi(verifyAuditChainRoute, async (c) => c.json(await verifyTenantChain((work) => work(c.var.uow)), 200))
      .openapi(listAuditEventsRoute, async (c) => {
        const { from, to, ...query } = c.req.valid('query')
        const page = await listAuditEvents(c.var.uow, {
          ...query,
          from: from === undefined ? undefined : new Date(from),
          to: to === undefined ? undefined : new Date(to),
        })
        return c.json({ data: page.data.map(toAuditEvent), nextCursor: page.nextCursor }, 200)
      })
  )
}
