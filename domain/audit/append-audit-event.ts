/**
 * @module Appending an audit record. The append runs in the caller's unit of work, so a write and the record of it
 * commit together. It is a plain INSERT, without a lock and without a place on the chain: the sealer
 * (seal-audit-events.ts) chains committed records shortly after, so a tenant's requests never wait for each other
 * here.
 */
import { sqlLiteral } from '../../infra/sql-literal.ts'
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

/** The statement of {@link appendAuditEvents}: $1 the records as JSON, $2 whether the commit may skip the WAL flush. */
const INSERT_RECORDS = `INSERT INTO audit_events (id, tenant_id, occurred_at, actor_type, actor_id, location_id, method, route,
      path, resource_type, resource_id, status, request_id, client_ip, user_agent, latency_ms)
    SELECT r.id, r."tenantId", r."occurredAt", r."actorType", r."actorId", r."locationId", r.method, r.route, r.path,
      r."resourceType", r."resourceId", r.status, r."requestId", r."clientIp", r."userAgent", r."latencyMs"
    FROM json_to_recordset($1::json) AS r(id text, "tenantId" text, "occurredAt" timestamptz,
      "actorType" text, "actorId" text, "locationId" text, method text, route text, path text, "resourceType" text,
      "resourceId" text, status integer, "requestId" text, "clientIp" text, "userAgent" text, "latencyMs" integer),
    (SELECT set_config('synchronous_commit',
      CASE WHEN $2::boolean THEN 'off' ELSE current_setting('synchronous_commit') END, true)) AS durability`

const recordsOf = (entries: readonly AuditEntry[]): AuditRecord[] =>
  entries.map((entry) => ({ ...normaliseEntry(entry), id: newId('auditEvent') }))

// The setting applies to the unit's commit; synchronous keeps whatever the server has.
const relaxedOf = (options: AppendOptions) => options.durability === 'asynchronous'

/**
 * The statement that appends a record of one call to the trail of `entry.tenantId`, unsealed, as text without
 * parameters (the record as an escaped JSON literal): for the unit of work to send in its COMMIT's own message
 * (`UnitOfWork.commitWith`), so the record costs the request no round trip of its own. The same INSERT as
 * {@link appendAuditEvents}, durability included.
 * @param entry - the call; the unit that sends it must be of `entry.tenantId`
 * @param options - how durable the unit's commit must be
 */
export function auditInsertStatement(entry: AuditEntry, options: AppendOptions): string {
  const values: Record<string, string> = {
    $1: sqlLiteral(JSON.stringify(recordsOf([entry]))),
    $2: String(relaxedOf(options)),
  }
  // One pass over the statement's own text, through a function: what a value holds (a path or a user agent with `$2`,
  // `$&`, `$'`) is never scanned for placeholders or read as a replacement pattern.
  return INSERT_RECORDS.replace(/\$[12]\b/g, (placeholder) => values[placeholder]!)
}

/**
 * Appends records of calls to the trail of the unit's tenant, unsealed, in one statement.
 *
 * Sent through the unit's direct line to its connection (`uow.execute`), not as a Prisma operation: it runs for every
 * request, and Prisma's machinery cost more CPU than the statement (docs/benchmarks.md, "Reading the guarded-read
 * figures"). The durability setting rides along in a sub-select, so it costs no extra round trip. The records travel
 * as one JSON parameter, unpacked by `json_to_recordset` with the columns' types: `normaliseEntry` has made every text
 * valid UTF-8 without NUL, and JSON carries the time as an ISO string.
 * @param uow - a unit of work; its tenant names the chain
 * @param entries - the calls; each `entry.tenantId` must be the unit's tenant
 * @param options - how durable the unit's commit must be
 */
export async function appendAuditEvents(
  uow: UnitOfWork,
  entries: readonly AuditEntry[],
  options: AppendOptions = { durability: 'synchronous' }
): Promise<AuditRecord[]> {
  const { tenantId } = uow
  if (entries.some((entry) => entry.tenantId !== tenantId)) {
    throw new Error('An audit record belongs to the chain of its own tenant.')
  }
  if (entries.length === 0) return []
  const records = recordsOf(entries)
  const inserted = await uow.execute(INSERT_RECORDS, [JSON.stringify(records), String(relaxedOf(options))])
  if (inserted !== records.length) throw new Error(`${inserted} of ${records.length} audit records were inserted.`)
  return records
}

/**
 * Appends a record of one call to the trail of the unit's tenant, unsealed (see {@link appendAuditEvents}).
 * @param entry - the call; `entry.tenantId` must be the unit's tenant
 */
export async function appendAuditEvent(
  uow: UnitOfWork,
  entry: AuditEntry,
  options: AppendOptions = { durability: 'synchronous' }
): Promise<AuditRecord> {
  const [record] = await appendAuditEvents(uow, [entry], options)
  return record!
}
