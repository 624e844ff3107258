/**
 * A guard on the webhook pumps' statements, counted in rows read rather than timed (issue 56, item 2): the database's
 * own `EXPLAIN (ANALYZE)` of the statement a pump runs, over a queue its statistics have not seen, as on a database
 * whose backlog grows faster than autovacuum analyzes it. Rows read do not depend on the machine's speed or on what
 * runs beside the file, so the bound holds on a slow machine as on a fast one, and a plan that reads the queue instead
 * of the rows it was given fails here, in seconds, rather than as a latency figure in a benchmark.
 *
 * The regression it guards: recording a batch of 16 attempts read every PENDING row through the (endpoint_id, status)
 * index (656 buffers a call at 1,000 deliveries a second; docs/benchmarks.md, "Webhooks: where PostgreSQL's time goes
 * per delivery").
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { recordAttemptsStatement } from '../../domain/webhooks/attempt-records.ts'
import type { AttemptRecord } from '../../domain/webhooks/attempt-record.ts'
import { newId } from '../../domain/ids.ts'
import { closeDb, createDb, type Db } from '../../infra/db.ts'
import { testDatabaseUrl } from '../support/file-database.ts'
import { planOf, rowsRead } from '../support/statement-plans.ts'

/** Queued deliveries behind the batch: enough that reading them all shows against reading the batch. */
const QUEUED = 3000
/** Deliveries done, and how many were queued, when the table was last analyzed. */
const DONE = 3000
const ANALYZED = 50
const BATCH = 16

let db: Db
let tenantId: string
let endpointId: string

beforeAll(async () => {
  db = createDb(testDatabaseUrl(), 2)
  tenantId = newId('tenant')
  endpointId = newId('webhookEndpoint')
  await db.tenant.create({ data: { id: tenantId, name: `plans-${tenantId}` } })
  await db.$executeRaw`
    INSERT INTO webhook_endpoints (id, tenant_id, url, event_types, signing_scheme, secret, updated_at)
    VALUES (${endpointId}, ${tenantId}, 'http://127.0.0.1:9/plans', ARRAY['*'], 'V1', 'whsec_plans', now())`
  // Analyzed while the pumps kept up (nearly every delivery done, a few queued), then a backlog past what the
  // statistics say: the bench's database at 1,000 deliveries a second, where PENDING rows were estimated at 253 and
  // were 12,528.
  await queue(1, DONE, 'SUCCEEDED')
  await queue(DONE + 1, DONE + ANALYZED, 'PENDING')
  await db.$executeRawUnsafe('ANALYZE webhook_deliveries')
  await queue(DONE + ANALYZED + 1, DONE + QUEUED, 'PENDING')
})

afterAll(async () => {
  await closeDb(db)
})

/** Deliveries (and their events) numbered `from` to `to`: queued and due now, or done. */
async function queue(from: number, to: number, status: 'PENDING' | 'SUCCEEDED') {
  await db.$executeRaw`
    INSERT INTO events (id, tenant_id, type, data, created_at, fanned_out_at)
    SELECT 'evt_plans_' || g, ${tenantId}, 'child.registered', '{}'::jsonb, now(), now()
    FROM generate_series(${from}::int, ${to}::int) g`
  await db.$executeRaw`
    INSERT INTO webhook_deliveries (id, tenant_id, event_id, endpoint_id, event_type, kind, status, next_attempt_at,
      created_at)
    SELECT 'dlv_plans_' || g, ${tenantId}, 'evt_plans_' || g, ${endpointId}, 'child.registered', 'EVENT',
      ${status}::"WebhookDeliveryStatus", CASE WHEN ${status} = 'PENDING' THEN now() END, now()
    FROM generate_series(${from}::int, ${to}::int) g`
}

describe('the webhook pumps’ statements over a queue the statistics have not seen', () => {
  it('record a batch of attempts by key: the batch’s rows read, not the queue behind it', async () => {
    const now = new Date()
    const records: AttemptRecord[] = Array.from({ length: BATCH }, (_, i) => ({
      deliveryId: `dlv_plans_${DONE + i * 97 + 1}`,
      tenantId,
      endpointId,
      number: 1,
      attempted: true,
      attemptedAt: now,
      firstAttemptAt: now,
      statusCode: 200,
      latencyMs: 5,
      error: null,
      succeeded: true,
      status: 'SUCCEEDED',
      nextAttemptAt: null,
      lastError: null,
      gone: false,
    }))
    const plan = await planOf(recordAttemptsStatement(records, { now, circuitFailures: 5 }), (statement) =>
      db.$queryRawUnsafe<unknown[]>(statement.text, ...statement.values)
    )
    // The batch's rows, looked up by key; reading the queue behind them reads thousands.
    expect(rowsRead(plan, 'webhook_deliveries'), JSON.stringify(plan).slice(0, 4000)).toBeLessThanOrEqual(2 * BATCH)
    const recorded = await db.webhookDelivery.count({ where: { endpointId, status: 'SUCCEEDED' } })
    expect(recorded).toBe(DONE + BATCH)
  })
})
