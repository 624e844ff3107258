/**
 * @module Sealing: putting committed audit records on their tenant's hash chain, off the request path. Requests
 * insert records without a lock (append-audit-event.ts); the sealer, a periodic loop of every API instance (and a
 * direct call before every verification), gives each unsealed record the next `seq` of its tenant's chain and the
 * hash over its content, `prevHash` and `seq`, in `audit_chain`.
 *
 * A tenant's chain is sealed under a transaction-scoped advisory lock on `audit:<tenant>`, so sealers of several
 * instances take turns and never fork a chain (the (tenant_id, seq) primary key and the unique event_id would refuse
 * a fork or a double seal anyway, as a failed seal). Records are sealed in (occurred_at, id) order, but a record that
 * commits after a seal that already passed its timestamp simply takes the next seq in a later seal: `seq` is the
 * chain's order, not time order.
 */
import { startBackgroundLoop } from '../../infra/background-loop.ts'
import type { Db } from '../../infra/db.ts'
import type { Logger } from '../../infra/logger.ts'
import { runInUnitOfWork, type UnitOfWork } from '../../infra/unit-of-work.ts'
import { GENESIS_HASH, type ActorType, type AuditRecord } from './audit-event.ts'
import { auditEventHash } from './audit-hash.ts'

/** Records sealed per transaction: bounds the lock's hold and the transaction's size. */
export const SEAL_BATCH = 1000

/** An audit_events row as raw SQL returns it. */
export interface AuditEventRow {
  id: string
  tenant_id: string
  occurred_at: Date
  actor_type: string
  actor_id: string | null
  location_id: string | null
  method: string
  route: string
  path: string
  resource_type: string | null
  resource_id: string | null
  status: number
  request_id: string
  client_ip: string | null
  user_agent: string | null
  latency_ms: number
}

/** The columns of {@link AuditEventRow}, for raw queries (`e` is audit_events). */
export const AUDIT_EVENT_COLUMNS = `e.id, e.tenant_id, e.occurred_at, e.actor_type, e.actor_id, e.location_id,
  e.method, e.route, e.path, e.resource_type, e.resource_id, e.status, e.request_id, e.client_ip, e.user_agent,
  e.latency_ms`

/** A raw row as the record it stores. */
export const toAuditRecord = (row: AuditEventRow): AuditRecord => ({
  id: row.id,
  tenantId: row.tenant_id,
  occurredAt: row.occurred_at,
  actorType: row.actor_type as ActorType,
  actorId: row.actor_id,
  locationId: row.location_id,
  method: row.method,
  route: row.route,
  path: row.path,
  resourceType: row.resource_type,
  resourceId: row.resource_id,
  status: Number(row.status),
  requestId: row.request_id,
  clientIp: row.client_ip,
  userAgent: row.user_agent,
  latencyMs: Number(row.latency_ms),
})

/**
 * Seals up to `limit` of the unit's tenant's unsealed records, oldest first, in the unit's transaction.
 *
 * Three steps after the lock, each its own statement: in READ COMMITTED a statement's snapshot is taken when it
 * starts, so the head and the unsealed records are read after the lock was granted and include everything the
 * previous holder committed. The lock is held until the unit ends: call this in a short unit of its own (as
 * {@link sealPending} does) unless the unit is meant to hold the chain still, as a verification does.
 * @returns how many records were sealed; `limit` means there may be more
 */
export async function sealTenantChain({ tx, tenantId, execute }: UnitOfWork, limit = SEAL_BATCH): Promise<number> {
  await tx.$executeRaw`SELECT pg_advisory_xact_lock(hashtext(${`audit:${tenantId}`}))`
  const [head] = await tx.$queryRaw<Array<{ seq: bigint; hash: string }>>`
    SELECT seq, hash FROM audit_chain WHERE tenant_id = ${tenantId} ORDER BY seq DESC LIMIT 1`
  // The queue holds exactly the records without a link (a trigger adds each record, sealing removes it), so this
  // reads the unsealed records, not the tenant's whole history.
  const rows = await tx.$queryRawUnsafe<AuditEventRow[]>(
    `SELECT ${AUDIT_EVENT_COLUMNS} FROM audit_unsealed u JOIN audit_events e ON e.id = u.event_id
     WHERE u.tenant_id = $1
     ORDER BY u.occurred_at, u.event_id LIMIT $2`,
    tenantId,
    limit
  )
  if (rows.length === 0) return 0
  let seq = head ? BigInt(head.seq) : 0n
  let prevHash = head?.hash ?? GENESIS_HASH
  const links = rows.map((row) => {
    seq += 1n
    const hash = auditEventHash({ ...toAuditRecord(row), seq, prevHash })
    const link = { seq, eventId: row.id, prevHash, hash }
    prevHash = hash
    return link
  })
  // One statement with the links as one JSON parameter, through the unit's direct line: Prisma compiles a createMany
  // afresh for every batch size (its plan cache skips createMany) and renders a parameter per field, which under
  // load cost the API process more than the requests' own audit INSERTs (docs/benchmarks.md).
  // The links and the queue's release of what they seal are one statement, so they commit together or not at all.
  const inserted = await execute(
    `WITH sealed AS (
       INSERT INTO audit_chain (tenant_id, seq, event_id, prev_hash, hash)
       SELECT $1, l.seq, l.event_id, l.prev_hash, l.hash
       FROM json_to_recordset($2::json) AS l(seq bigint, event_id text, prev_hash text, hash text)
       RETURNING event_id)
     DELETE FROM audit_unsealed u USING sealed WHERE u.event_id = sealed.event_id`,
    [
      tenantId,
      JSON.stringify(
        links.map((l) => ({ seq: l.seq.toString(), event_id: l.eventId, prev_hash: l.prevHash, hash: l.hash }))
      ),
    ]
  )
  if (inserted !== links.length) throw new Error(`Sealed ${inserted} of ${links.length} audit records.`)
  return links.length
}

/** Seals a tenant's chain to its end, one short unit of work (and lock hold) per batch. */
async function sealTenant(db: Db, tenantId: string): Promise<number> {
  let total = 0
  for (;;) {
    const sealed = await runInUnitOfWork(db, tenantId, (uow) => sealTenantChain(uow))
    total += sealed
    if (sealed < SEAL_BATCH) return total
  }
}

/**
 * Seals every record committed so far, of every tenant (or of one). Finding the tenants with unsealed records
 * crosses tenants, so it runs as the login role, like the outbox sweep; each tenant's chain is then sealed as
 * that tenant (role therapy_app, row-level security), which may only read its chain and append to it.
 * @throws AggregateError once every tenant was tried, when some could not be sealed
 * @returns how many records were sealed
 */
export async function sealPending(db: Db, options: { tenantId?: string } = {}): Promise<number> {
  const tenants =
    options.tenantId === undefined
      ? (
          await db.$queryRaw<Array<{ tenant_id: string }>>`
            SELECT DISTINCT tenant_id FROM audit_unsealed`
        ).map((row) => row.tenant_id)
      : [options.tenantId]
  let total = 0
  const failures: unknown[] = []
  for (const tenantId of tenants) {
    try {
      total += await sealTenant(db, tenantId)
    } catch (error) {
      // One tenant's failure must not leave the others unsealed.
      failures.push(error)
    }
  }
  if (failures.length > 0) throw new AggregateError(failures, `${failures.length} audit chain(s) could not be sealed`)
  return total
}

/**
 * Runs {@link sealPending} every `intervalMs`, one round at a time, until the returned function stops it (after the
 * round in progress). Every API instance runs one; the chain lock makes them take turns per tenant.
 */
export function startAuditSealer(db: Db, logger: Logger, intervalMs: number): () => Promise<void> {
  // A slow round (a long backlog) is followed by at most one more, never by a queue of them.
  return startBackgroundLoop({
    run: async () => {
      await sealPending(db)
    },
    intervalMs,
    runAtStart: false,
    onError: (error) => logger.error({ err: error }, 'audit seal failed'),
  })
}
