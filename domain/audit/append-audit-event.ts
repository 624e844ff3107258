/**
 * @module Appending to a tenant's audit chain. The append runs in the caller's unit of work, so a write and the
 * record of it commit together. A transaction-scoped advisory lock per tenant serialises appends from the moment the chain's
 * head is read until commit: two requests can never both read record n and both write n + 1, so the chain never
 * forks (the unique (tenant_id, seq) index would refuse a fork, but as a failed request, not a record).
 */
import type { UnitOfWork } from '../../infra/unit-of-work.ts'
import { newId } from '../ids.ts'
import { GENESIS_HASH, normaliseEntry, type AuditEntry, type AuditEvent } from './audit-event.ts'
import { canonicalAuditJson } from './audit-hash.ts'

export interface AppendOptions {
  /**
   * `synchronous`: the unit's commit waits for the WAL flush, as every write's does. `asynchronous`: it does
   * not (`synchronous_commit = off`), for a unit whose only write is this record, i.e. a read. That takes the flush
   * out of the time the chain's lock is held, which otherwise caps a tenant's audited calls at one flush each; the
   * price is that a PostgreSQL crash can lose the last few hundred milliseconds of read records. They are lost as a
   * tail, so the chain stays intact. docs/audit-trail.md weighs it.
   */
  durability: 'synchronous' | 'asynchronous'
}

/**
 * Appends a record of one call to the chain of the unit's tenant.
 *
 * Two statements: the lock, then one INSERT … SELECT that reads the chain's head through the (tenant_id, seq) index
 * and computes the new record's seq, prevHash and hash (audit-hash.ts defines the hashed text; PostgreSQL's sha256
 * computes it here, verification recomputes it in TypeScript). They must stay two: a statement's snapshot is taken
 * when it starts, so a head read in the statement that waited for the lock could miss the record committed by the
 * previous holder. The lock is held until the unit commits, so the append must be the last thing a transaction does:
 * nothing else may run (or wait) while a tenant's chain is locked, which also rules out deadlocks with the locks the
 * request itself took.
 * @param uow - a unit of work; its tenant names the chain
 * @param entry - the call; `entry.tenantId` must be the unit's tenant
 * @param options - how durable the unit's commit must be
 */
export async function appendAuditEvent(
  uow: UnitOfWork,
  entry: AuditEntry,
  options: AppendOptions = { durability: 'synchronous' }
): Promise<AuditEvent> {
  const { tx, tenantId } = uow
  if (entry.tenantId !== tenantId) throw new Error('An audit record belongs to the chain of its own tenant.')
  const record = { ...normaliseEntry(entry), id: newId('auditEvent') }
  const canonical = canonicalAuditJson(record)
  const relaxed = options.durability === 'asynchronous'
  // One statement for both; the setting applies to the unit's commit. Synchronous keeps whatever the server has.
  await tx.$executeRaw`SELECT
    set_config('synchronous_commit',
      CASE WHEN ${relaxed} THEN 'off' ELSE current_setting('synchronous_commit') END, true),
    pg_advisory_xact_lock(hashtext(${`audit:${tenantId}`}))`
  const [chained] = await tx.$queryRaw<Array<{ seq: bigint; prev_hash: string; hash: string }>>`
    INSERT INTO audit_events (id, tenant_id, occurred_at, actor_type, actor_id, location_id, method, route, path,
      resource_type, resource_id, status, request_id, client_ip, user_agent, latency_ms, seq, prev_hash, hash)
    SELECT ${record.id}, ${tenantId}, ${record.occurredAt}, ${record.actorType}, ${record.actorId},
      ${record.locationId}, ${record.method}, ${record.route}, ${record.path}, ${record.resourceType},
      ${record.resourceId}, ${record.status}, ${record.requestId}, ${record.clientIp}, ${record.userAgent},
      ${record.latencyMs}, next.seq, next.prev_hash,
      encode(sha256(convert_to(next.prev_hash || chr(10) || next.seq::text || chr(10) || ${canonical}, 'UTF8')),
        'hex')
    FROM (
      SELECT COALESCE(head.seq, 0) + 1 AS seq, COALESCE(head.hash, ${GENESIS_HASH}) AS prev_hash
      FROM (SELECT 1) AS always
      LEFT JOIN LATERAL (
        SELECT seq, hash FROM audit_events WHERE tenant_id = ${tenantId} ORDER BY seq DESC LIMIT 1
      ) AS head ON true
    ) AS next
    RETURNING seq, prev_hash, hash`
  if (!chained) throw new Error('The audit record was not inserted.')
  return { ...record, seq: BigInt(chained.seq), prevHash: chained.prev_hash, hash: chained.hash }
}
