/**
 * @module Recording what the pumps' attempts did (docs/webhooks.md, "Delivery"): one statement per batch writes each
 * delivery's new state, its attempt row, and each endpoint's run of failures and breaker. Split from the queue's
 * claims (delivery-queue.ts), which hand out the work this records.
 */
import { Prisma } from '../../generated/prisma/client.ts'
import type { Queryable } from '../../infra/db.ts'
import { newId } from '../ids.ts'
import type { AttemptRecord } from './attempt-record.ts'
import { endpointHealth, type EndpointChange } from './endpoint-health.ts'

/**
 * Records a batch of attempts in one statement: each delivery's new state and its attempt row (a successful first
 * attempt is kept on the delivery row instead, see delivery-log.ts `attemptsOf`), and each endpoint's run of failures
 * and breaker. A record whose attempt is already recorded (a pump that re-ran a delivery after its lease expired)
 * changes nothing; a busy healthy endpoint's row is not written at all. Runs as the login role
 * (a pump's batch spans tenants) or in one tenant's unit of work (`db` its transaction).
 * @returns the endpoints whose state changed
 */
export async function recordAttempts(
  db: Queryable,
  records: AttemptRecord[],
  options: { now: Date; circuitFailures: number }
): Promise<EndpointChange[]> {
  if (records.length === 0) return []
  const rows = await db.$queryRaw<
    Array<{ id: string; tenant_id: string; failing_since: Date | null; was_open: boolean; is_open: boolean }>
  >(recordAttemptsStatement(records, options))
  return rows.map((row) => ({
    endpointId: row.id,
    tenantId: row.tenant_id,
    failingSince: row.failing_since,
    opened: !row.was_open && row.is_open,
    closed: row.was_open && !row.is_open,
  }))
}

/**
 * The statement `recordAttempts` runs (also read by the plan guard, test/integration/webhook-statement-plans.int.test.ts).
 * @param records - at least one
 */
export function recordAttemptsStatement(
  records: AttemptRecord[],
  options: { now: Date; circuitFailures: number }
): Prisma.Sql {
  const attempts = JSON.stringify(
    records.map((r) => ({
      delivery_id: r.deliveryId,
      tenant_id: r.tenantId,
      attempt_id: newId('webhookAttempt'),
      number: r.number,
      attempted: r.attempted,
      attempted_at: r.attemptedAt.toISOString(),
      first_attempt_at: r.firstAttemptAt.toISOString(),
      status_code: r.statusCode,
      latency_ms: r.latencyMs,
      error: r.error,
      succeeded: r.succeeded,
      status: r.status,
      next_attempt_at: r.nextAttemptAt?.toISOString() ?? null,
      last_error: r.lastError,
      inline: r.attempted && r.succeeded && r.number === 1,
    }))
  )
  const health = JSON.stringify(
    endpointHealth(records).map((h) => ({
      endpoint_id: h.endpointId,
      reset: h.reset,
      failures: h.failures,
      failed_at: h.failedAt?.toISOString() ?? null,
    }))
  )
  return Prisma.sql`
    WITH r AS (
      SELECT * FROM jsonb_to_recordset(${attempts}::jsonb) AS r(
        delivery_id text, tenant_id text, attempt_id text, number int, attempted boolean, attempted_at timestamptz,
        first_attempt_at timestamptz, status_code int, latency_ms int, error text, succeeded boolean, status text,
        next_attempt_at timestamptz, last_error text, inline boolean)
    ), d AS (
      UPDATE webhook_deliveries w SET
        status = r.status::"WebhookDeliveryStatus",
        attempt_count = r.number,
        last_status_code = CASE WHEN r.attempted THEN r.status_code ELSE w.last_status_code END,
        last_error = r.last_error,
        -- A retry of an endpoint whose breaker is open is held (held-deliveries.ts): an attempt that was in flight
        -- when the breaker opened, or a retry workflow's probe that failed. Redeliveries keep their time.
        next_attempt_at = CASE
          WHEN r.status = 'PENDING' AND w.kind = 'EVENT' AND EXISTS (SELECT 1 FROM webhook_endpoints ep
            WHERE ep.id = w.endpoint_id AND ep.circuit_opened_at IS NOT NULL AND ep.enabled) THEN NULL
          ELSE r.next_attempt_at END,
        first_attempt_at = COALESCE(w.first_attempt_at, CASE WHEN r.attempted THEN r.first_attempt_at END),
        -- A first attempt that succeeded lives on the row (its time and status code are the two columns above), not
        -- in an attempt row of its own: one INSERT and its two index entries less for most deliveries.
        first_attempt_latency_ms = CASE WHEN r.inline THEN r.latency_ms ELSE w.first_attempt_latency_ms END,
        completed_at = CASE WHEN r.status = 'PENDING' THEN NULL ELSE ${options.now}::timestamptz END,
        dispatch_lease_until = NULL
      FROM r
      -- The ids again as an array: the planner knows how many rows it looks up by primary key. Joined to r alone
      -- (estimated at 100 rows) it read every PENDING row by the status index once its statistics lagged a growing
      -- backlog (a 7 ms statement per batch of 16 at 1,000 deliveries/s, docs/benchmarks.md).
      WHERE w.id = ANY(${records.map((r) => r.deliveryId)}::text[]) AND w.id = r.delivery_id AND w.status = 'PENDING'
        AND w.attempt_count = r.number - CASE WHEN r.attempted THEN 1 ELSE 0 END
      RETURNING w.id
    ), a AS (
      INSERT INTO webhook_delivery_attempts
        (id, tenant_id, delivery_id, number, attempted_at, status_code, latency_ms, error, succeeded)
      SELECT r.attempt_id, r.tenant_id, r.delivery_id, r.number, r.attempted_at, r.status_code, r.latency_ms, r.error,
        r.succeeded
      FROM r JOIN d ON d.id = r.delivery_id WHERE r.attempted AND NOT r.inline
      ON CONFLICT DO NOTHING
    ), h AS (
      SELECT * FROM jsonb_to_recordset(${health}::jsonb)
        AS h(endpoint_id text, reset boolean, failures int, failed_at timestamptz)
    ), e AS (
      UPDATE webhook_endpoints w SET
        consecutive_failures = CASE WHEN h.reset THEN h.failures ELSE w.consecutive_failures + h.failures END,
        failing_since = CASE WHEN h.failures = 0 THEN NULL WHEN h.reset THEN h.failed_at
                             ELSE COALESCE(w.failing_since, h.failed_at) END,
        circuit_opened_at = CASE
          WHEN h.failures = 0 THEN NULL
          WHEN w.circuit_opened_at IS NULL
            AND (CASE WHEN h.reset THEN h.failures ELSE w.consecutive_failures + h.failures END) >= ${options.circuitFailures}::int
            THEN ${options.now}::timestamptz
          ELSE w.circuit_opened_at END
      FROM h JOIN webhook_endpoints old ON old.id = h.endpoint_id
      WHERE w.id = h.endpoint_id
        AND (h.failures > 0 OR w.failing_since IS NOT NULL OR w.consecutive_failures > 0 OR w.circuit_opened_at IS NOT NULL)
      RETURNING w.id, w.tenant_id, w.failing_since, old.circuit_opened_at IS NOT NULL AS was_open,
        w.circuit_opened_at IS NOT NULL AS is_open
    )
    SELECT id, tenant_id, failing_since, was_open, is_open FROM e`
}
