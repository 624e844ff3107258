/**
 * @module Held deliveries (docs/webhooks.md, "Failing endpoints"). While an endpoint's circuit breaker is open, its
 * queued EVENT deliveries wait for the endpoint's retry workflow with `next_attempt_at` NULL: out of the range the
 * pumps' claim walks in the due index (`next_attempt_at <= now`), so a dead endpoint's backlog of a day costs the
 * healthy endpoints' claims nothing. Redeliveries asked for by hand keep their time: the claim takes them while the
 * breaker is open. When the breaker closes the held rows are due again, and the pumps drain them at the endpoint's
 * pace.
 *
 * Who makes a row held: fan-out (an open endpoint's new rows, delivery-queue.ts `fanOutEvents`), a batch's record (a
 * retry of an endpoint whose breaker is open, `recordAttempts`), `holdDeliveries` (the breaker just opened) and the
 * pumps' periodic check (`holdStrays`). Who makes it due again: `releaseHeld` (a success closed the breaker) and
 * endpoint-service.ts (enabled again, pointed elsewhere, or disabled by hand: the claim then ends its deliveries).
 *
 * Opening and closing lock the endpoint row (an UPDATE, or FOR SHARE here and in fan-out), so a row is never made
 * held after the release that should have freed it: held rows of a closed endpoint would wait for ever, as nothing
 * looks for them. The opposite slip, a due row of an open endpoint (fan-out read the endpoint just before its breaker
 * opened), is harmless: the claim's join skips it, and the periodic check makes it held.
 */
import type { Db, Queryable } from '../../infra/db.ts'

/**
 * Holds the queued EVENT deliveries of endpoints whose breaker just opened. Locks each endpoint first and holds only
 * for those still open: a close that won the race has released what it found, and anything nulled after it would
 * never be released.
 */
export async function holdDeliveries(db: Db, endpointIds: string[]): Promise<void> {
  if (endpointIds.length === 0) return
  await db.$transaction(async (tx) => {
    const open = await tx.$queryRaw<Array<{ id: string }>>`
      SELECT id FROM webhook_endpoints
      WHERE id = ANY(${endpointIds}::text[]) AND circuit_opened_at IS NOT NULL AND enabled
      FOR SHARE`
    if (open.length === 0) return
    await tx.$executeRaw`
      UPDATE webhook_deliveries SET next_attempt_at = NULL
      WHERE endpoint_id = ANY(${open.map((e) => e.id)}::text[]) AND status = 'PENDING' AND workflow_started_at IS NULL
        AND kind = 'EVENT' AND next_attempt_at IS NOT NULL`
  })
}

/**
 * Makes an endpoint's held deliveries, and its queued retries, due now: its breaker closed. Only queued rows (PENDING,
 * no delivery workflow of the earlier design): an ended delivery is never brought back.
 * @param db - the pool, or the transaction that closed the breaker
 */
export async function releaseHeld(db: Queryable, endpointIds: string[], now: Date): Promise<void> {
  if (endpointIds.length === 0) return
  await db.$executeRaw`
    UPDATE webhook_deliveries SET next_attempt_at = ${now}
    WHERE endpoint_id = ANY(${endpointIds}::text[]) AND status = 'PENDING' AND workflow_started_at IS NULL
      AND (next_attempt_at IS NULL OR next_attempt_at > ${now})`
}

/**
 * Makes the held deliveries of a disabled endpoint due, so the claim takes them and ends them ("endpoint disabled")
 * as it ends the rest of the endpoint's queue. Their retries keep their times.
 * @param db - the transaction that disabled the endpoint
 */
export async function releaseHeldOfDisabled(db: Queryable, endpointId: string, now: Date): Promise<void> {
  await db.$executeRaw`
    UPDATE webhook_deliveries SET next_attempt_at = ${now}
    WHERE endpoint_id = ${endpointId} AND status = 'PENDING' AND workflow_started_at IS NULL
      AND next_attempt_at IS NULL`
}

/** Open-breaker endpoints of a partition that hold deliveries: each must have its retry workflow running. */
export async function endpointsHoldingDeliveries(
  db: Db,
  partition: number,
  partitions: number
): Promise<Array<{ endpointId: string; tenantId: string }>> {
  const rows = await db.$queryRaw<Array<{ id: string; tenant_id: string }>>`
    SELECT w.id, w.tenant_id FROM webhook_endpoints w
    WHERE w.circuit_opened_at IS NOT NULL AND w.enabled
      AND mod(abs(hashtext(w.id)::bigint), ${partitions}::bigint) = ${partition}::bigint
      AND EXISTS (SELECT 1 FROM webhook_deliveries d
                  WHERE d.endpoint_id = w.id AND d.status = 'PENDING' AND d.workflow_started_at IS NULL)`
  return rows.map((row) => ({ endpointId: row.id, tenantId: row.tenant_id }))
}

/**
 * Holds the stray due rows of open endpoints: what a fan-out that read an endpoint just before its breaker opened
 * left behind (the claim skips them anyway; this keeps them out of its way). The due index finds them (they are
 * the endpoints' only rows in the due range), so this costs a walk over what is due now, not over the held backlog.
 * Rows under a lease (an attempt in flight) are left to their record, which holds them.
 * @returns how many rows it held
 */
export async function holdStrays(db: Db, endpointIds: string[], now: Date): Promise<number> {
  if (endpointIds.length === 0) return 0
  return db.$transaction(async (tx) => {
    const open = await tx.$queryRaw<Array<{ id: string }>>`
      SELECT id FROM webhook_endpoints
      WHERE id = ANY(${endpointIds}::text[]) AND circuit_opened_at IS NOT NULL AND enabled
      FOR SHARE`
    if (open.length === 0) return 0
    return tx.$executeRaw`
      WITH stray AS (
        SELECT id FROM webhook_deliveries
        WHERE status = 'PENDING' AND workflow_started_at IS NULL AND next_attempt_at <= ${now}
          AND kind = 'EVENT' AND endpoint_id = ANY(${open.map((e) => e.id)}::text[])
          AND (dispatch_lease_until IS NULL OR dispatch_lease_until < ${now})
        FOR UPDATE SKIP LOCKED)
      UPDATE webhook_deliveries d SET next_attempt_at = NULL FROM stray WHERE d.id = stray.id`
  })
}
