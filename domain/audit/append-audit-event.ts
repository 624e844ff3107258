/**
 * @module Appending an audit record. The append runs in the caller's unit of work, so a write and the record of it
 * commit together. It is a plain INSERT, without a lock and without a place on the chain: the sealer
 * (seal-audit-events.ts) chains committed records shortly after, so a tenant's requests never wait for each other
 * here.
 */
import type { UnitOfWork } from '../../infra/unit-of-work.ts'
import { newId } from '../ids.ts'
import { normaliseEntry, type AuditEntry, type AuditRecord } from './audit-event.ts'

export interface AppendOptions {
  /**
   * `synchronous`: the unit's commit waits for the WAL flush, as every write's does. `asynchronous`: it does not
   * (`synchronous_commit = off`), for a unit whose only write is this record, i.e. a read: otherwise every audited
   * read would be a durable write and pay a flush in its latency. The price is that a PostgreSQL crash can lose the
   * last few hundred milliseconds of read records. docs/audit-trail.md weighs it.
   */
  durability: 'synchronous' | 'asynchronous'
}

/**
 * Appends a record of one call to the trail of the unit's tenant, unsealed.
 *
 * One statement: the durability setting rides along in a sub-select, so a read pays no extra round trip for it.
 * @param uow - a unit of work; its tenant names the chain
 * @param entry - the call; `entry.tenantId` must be the unit's tenant
 * @param options - how durable the unit's commit must be
 */
export async function appendAuditEvent(
  uow: UnitOfWork,
  entry: AuditEntry,
  options: AppendOptions = { durability: 'synchronous' }
): Promise<AuditRecord> {
  const { tx, tenantId } = uow
  if (entry.tenantId !== tenantId) throw new Error('An audit record belongs to the chain of its own tenant.')
  const record = { ...normaliseEntry(entry), id: newId('auditEvent') }
  const relaxed = options.durability === 'asynchronous'
  // The setting applies to the unit's commit; synchronous keeps whatever the server has.
  const inserted = await tx.$executeRaw`
    INSERT INTO audit_events (id, tenant_id, occurred_at, actor_type, actor_id, location_id, method, route, path,
      resource_type, resource_id, status, request_id, client_ip, user_agent, latency_ms)
    SELECT ${record.id}, ${tenantId}, ${record.occurredAt}, ${record.actorType}, ${record.actorId},
      ${record.locationId}, ${record.method}, ${record.route}, ${record.path}, ${record.resourceType},
      ${record.resourceId}, ${record.status}, ${record.requestId}, ${record.clientIp}, ${record.userAgent},
      ${record.latencyMs}
    FROM (SELECT set_config('synchronous_commit',
      CASE WHEN ${relaxed} THEN 'off' ELSE current_setting('synchronous_commit') END, true)) AS durability`
  if (inserted !== 1) throw new Error('The audit record was not inserted.')
  return record
}
