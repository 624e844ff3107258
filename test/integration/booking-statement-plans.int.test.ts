/**
 * A guard on the statements of a booking (`POST /v1/appointments`) whose cost could grow with the data, counted in rows
 * read rather than timed (issue 56, item 2; the webhook half is webhook-statement-plans.int.test.ts): the database's
 * own `EXPLAIN (ANALYZE)` of each, over a centre with months of appointments, time off, audit history and started
 * workflows that its statistics, taken while it was new, do not know about, beside another tenant as busy. A
 * statement that reads the centre instead of the provider's few rows around the slot fails here, in seconds, whatever
 * the machine's speed, rather than as a latency figure in a benchmark.
 *
 * Guarded, each run as the code sends it (recorded from the function that sends it, or Prisma's own SQL), where the code
 * runs it (in a unit of work as the tenant, or as the login):
 * - the slot check's read of the provider's appointments and time off (book-appointment.ts `slotProblem`);
 * - the session's price (price-for-service.ts `priceForService`);
 * - the audit sealer's read of the chain's tail and of the tenant's unsealed records (seal-audit-events.ts
 *   `sealTenantChain`), which seals the booking's audit record;
 * - the outbox sweep's claim of pending workflow starts (workflow-outbox.ts `dispatchPending`), which starts the
 *   booking's workflow should its start after commit fail.
 * Not guarded: statements by primary or unique key (the parties' lock, the outbox mark, the idempotency claim, whose
 * INSERT ... ON CONFLICT is arbitrated by the key's unique index, with no plan to choose), and the INSERTs, whose
 * overlap checks are the exclusion constraints' GiST probes, which have no plan node to count.
 *
 * Each bound is twice what the statement needs in this centre, as the webhook guard's; what it would read otherwise is
 * the centre's (or the platform's) thousands of rows.
 */
import { PrismaPg } from '@prisma/adapter-pg'
import type { Client } from '@temporalio/client'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { PrismaClient } from '../../generated/prisma/client.ts'
import { slotProblem } from '../../domain/appointments/book-appointment.ts'
import { sealTenantChain } from '../../domain/audit/seal-audit-events.ts'
import { newId } from '../../domain/ids.ts'
import { priceForService } from '../../domain/pricing/price-for-service.ts'
import { MAX_TIME_OFF_DAYS } from '../../domain/providers/time-off-length.ts'
import { createWorkflowOutbox } from '../../domain/workflow-runs/workflow-outbox.ts'
import { closeDb, createDb, type Db } from '../../infra/db.ts'
import { createLogger } from '../../infra/logger.ts'
import { runInUnitOfWork } from '../../infra/unit-of-work.ts'
import type { SqlStatement } from '../../infra/unit-routing.ts'
import { testDatabaseUrl } from '../support/file-database.ts'
import { statementsSent } from '../support/recording-unit.ts'
import { planOf, rowsRead, scansOf, type PlanNode, type RunStatement } from '../support/statement-plans.ts'

/** The slot booked: an hour of the booked provider's, at a location with a 10-minute buffer. */
const SLOT = { startsAt: new Date('2031-03-12T14:00:00Z'), endsAt: new Date('2031-03-12T15:00:00Z') }
/** Rows of each busy kind, per tenant (the other providers' appointments and time off, audit records, workflows). */
const BULK = 2000
/** Of each kind, those there were when the tables were last analyzed. */
const ANALYZED = 50
/**
 * The booked provider's days of work around the slot, one appointment a day at 10:00: the slot's day's is within the
 * longest appointment's reach (8 hours) of the slot, so the check reads it; the other days' it must not.
 */
const PROVIDER_DAYS = 200
const APPOINTMENTS_IN_REACH = 1
/**
 * The booked provider's weekly days off, nearly four years of them before the slot and some after, none on the slot's
 * day. The (provider_id, starts_at) index bounds the read from above by the window's end and, since one entry lasts at
 * most MAX_TIME_OFF_DAYS, from below by that much before its start: the days off of the last year, whatever the
 * provider's history (before, all 200 were read).
 */
const DAYS_OFF_BEFORE = 200
const DAYS_OFF_AFTER = 20
const DAYS_OFF_IN_REACH = Math.ceil(MAX_TIME_OFF_DAYS / 7)
/** The centre's prices of the booked service: 4 places (3 locations, tenant-wide) x 2 types x active and archived. */
const SERVICE = 'SPEECH_THERAPY'
const SERVICE_PRICES = 16
/** The centre's audit records not yet sealed (the booking's among them), behind a sealed history of BULK. */
const UNSEALED = 5
/** Workflow starts the sweep has to make, behind BULK it made. */
const PENDING = 20

let db: Db
let centre: string
let other: string

beforeAll(async () => {
  db = createDb(testDatabaseUrl(), 2)
  centre = newId('tenant')
  other = newId('tenant')
  for (const tenantId of [centre, other]) await open(tenantId)
  await priceList()
  // Analyzed while new, then months of work past what the statistics say.
  await fill(0, ANALYZED - 1)
  await db.$executeRawUnsafe(
    'ANALYZE appointments, provider_time_off, prices, audit_events, audit_unsealed, audit_chain, workflow_outbox'
  )
  await fill(ANALYZED, BULK - 1)
  await bookedProviderDays()
  await db.$executeRaw`
    INSERT INTO audit_events (id, tenant_id, occurred_at, actor_type, method, route, path, status, request_id,
      latency_ms)
    SELECT t.id || '_aud_new' || g, t.id, now(), 'API_CLIENT', 'POST', '/v1/appointments', '/v1/appointments', 201,
      'req', 5
    FROM generate_series(1, ${UNSEALED}::int) g, (VALUES (${centre}), (${other})) AS t(id)`
  await db.$executeRaw`
    INSERT INTO workflow_outbox (id, tenant_id, workflow_type, workflow_id, task_queue, args, search_attributes)
    SELECT ${centre} || '_out_new' || g, ${centre}, 'booking', ${centre} || '_wf_new' || g, 'plans', '[]', '{}'
    FROM generate_series(1, ${PENDING}::int) g`
}, 60_000)

afterAll(async () => {
  await closeDb(db)
})

/** A tenant with three locations, 20 providers (the first is booked) and a child for each. */
async function open(tenantId: string) {
  await db.tenant.create({ data: { id: tenantId, name: `plans-${tenantId}` } })
  await db.$executeRaw`
    INSERT INTO locations (id, tenant_id, name, time_zone, buffer_minutes)
    SELECT ${tenantId} || '_loc' || g, ${tenantId}, 'L' || g, 'UTC', 10 FROM generate_series(0, 2) g`
  await db.$executeRaw`
    INSERT INTO providers (id, tenant_id, location_id, name, time_zone, disciplines, updated_at)
    SELECT ${tenantId} || '_prv' || g, ${tenantId}, ${tenantId} || '_loc0', 'P' || g, 'UTC', ARRAY[${SERVICE}], now()
    FROM generate_series(0, 19) g`
  await db.$executeRaw`
    INSERT INTO children (id, tenant_id, first_name, last_name, date_of_birth, updated_at)
    SELECT ${tenantId} || '_chd' || g, ${tenantId}, 'C', 'D' || g, '2021-01-01', now() FROM generate_series(0, 19) g`
}

/**
 * Rows `from` to `to` of each busy kind, in both tenants: the other 19 providers' appointments, hour by hour around the
 * slot (its hour too), and their days off; the other tenant's price list (the centre's is written once); audit
 * records; started workflows. One transaction, so that autovacuum's ANALYZE never samples the moment between the
 * centre's audit records going onto the unsealed queue and their sealing taking them off it: statistics taken then say
 * the centre has a thousand unsealed records, and the planner rightly reads the queue whole (seen once in CI).
 */
async function fill(from: number, to: number) {
  await db.$transaction(
    async (tx) => {
      for (const tenantId of [centre, other]) {
        await tx.$executeRaw`
      INSERT INTO appointments (id, tenant_id, location_id, child_id, provider_id, type, service, status, starts_at,
        ends_at, time_zone, updated_at)
      SELECT ${tenantId} || '_apt' || g, ${tenantId}, ${tenantId} || '_loc0', ${tenantId} || '_chd' || (1 + g % 19),
        ${tenantId} || '_prv' || (1 + g % 19), 'THERAPY_SESSION', ${SERVICE}, 'CONFIRMED',
        ${SLOT.startsAt}::timestamptz + (g / 19 - 80) * interval '1 hour',
        ${SLOT.startsAt}::timestamptz + (g / 19 - 79) * interval '1 hour', 'UTC', now()
      FROM generate_series(${from}::int, ${to}::int) g`
        await tx.$executeRaw`
      INSERT INTO provider_time_off (id, tenant_id, provider_id, starts_at, ends_at, reason, updated_at)
      SELECT ${tenantId} || '_off' || g, ${tenantId}, ${tenantId} || '_prv' || (1 + g % 19),
        date_trunc('day', ${SLOT.startsAt}::timestamptz) + (g / 19 - 80) * interval '1 day',
        date_trunc('day', ${SLOT.startsAt}::timestamptz) + (g / 19 - 79) * interval '1 day', 'VACATION', now()
      FROM generate_series(${from}::int, ${to}::int) g`
        await tx.$executeRaw`
      INSERT INTO audit_events (id, tenant_id, occurred_at, actor_type, method, route, path, status, request_id,
        latency_ms)
      SELECT ${tenantId} || '_aud' || g, ${tenantId}, now() - interval '1 day' + g * interval '1 second',
        'API_CLIENT', 'POST', '/v1/appointments', '/v1/appointments', 201, 'req' || g, 5
      FROM generate_series(${from}::int, ${to}::int) g`
        await tx.$executeRaw`
      INSERT INTO workflow_outbox (id, tenant_id, workflow_type, workflow_id, task_queue, args, search_attributes,
        state, created_at, dispatched_at)
      SELECT ${tenantId} || '_out' || g, ${tenantId}, 'booking', ${tenantId} || '_wf' || g, 'plans', '[]', '{}',
        'DISPATCHED', now() - interval '1 day' + g * interval '1 second', now()
      FROM generate_series(${from}::int, ${to}::int) g`
      }
      // The centre's history is sealed: linked on its chain, and so off the queue the insert's trigger put it on. The
      // other tenant's sealing fell behind: its records wait on the queue.
      await tx.$executeRaw`
    INSERT INTO audit_chain (tenant_id, seq, event_id, prev_hash, hash)
    SELECT ${centre}, g + 1, ${centre} || '_aud' || g, 'h', 'h' FROM generate_series(${from}::int, ${to}::int) g`
      await tx.$executeRaw`
    DELETE FROM audit_unsealed WHERE tenant_id = ${centre} AND event_id IN (
      SELECT ${centre} || '_aud' || g FROM generate_series(${from}::int, ${to}::int) g)`
      // Another tenant's price list, past and present (archived entries hold no active key).
      await tx.$executeRaw`
    INSERT INTO prices (id, tenant_id, location_id, service, amount, currency, unit, active, archived_at, updated_at)
    SELECT ${other} || '_pri' || g, ${other}, ${other} || '_loc' || (g % 3),
      (ARRAY['SPEECH_THERAPY', 'OCCUPATIONAL_THERAPY', 'PHYSICAL_THERAPY'])[1 + g % 3], 9000, 'USD', 'PER_SESSION',
      false, now(), now()
    FROM generate_series(${from}::int, ${to}::int) g`
    },
    { timeout: 60_000 }
  )
}

/**
 * The booked provider's own rows: an appointment a day at 10:00 for PROVIDER_DAYS days either side of the slot, and
 * weekly days off.
 */
async function bookedProviderDays() {
  await db.$executeRaw`
    INSERT INTO appointments (id, tenant_id, location_id, child_id, provider_id, type, service, status, starts_at,
      ends_at, time_zone, updated_at)
    SELECT ${centre} || '_apt_booked' || d, ${centre}, ${centre} || '_loc0', ${centre} || '_chd0',
      ${centre} || '_prv0', 'THERAPY_SESSION', ${SERVICE}, 'CONFIRMED',
      ${SLOT.startsAt}::timestamptz - interval '4 hours' + d * interval '1 day',
      ${SLOT.startsAt}::timestamptz - interval '3 hours' + d * interval '1 day', 'UTC', now()
    FROM generate_series(${-PROVIDER_DAYS}::int, ${PROVIDER_DAYS}::int) d`
  await db.$executeRaw`
    INSERT INTO provider_time_off (id, tenant_id, provider_id, starts_at, ends_at, reason, updated_at)
    SELECT ${centre} || '_off_booked' || w, ${centre}, ${centre} || '_prv0',
      date_trunc('day', ${SLOT.startsAt}::timestamptz) + w * interval '7 days',
      date_trunc('day', ${SLOT.startsAt}::timestamptz) + w * interval '7 days' + interval '1 day', 'PERSONAL', now()
    FROM generate_series(${-DAYS_OFF_BEFORE}::int, ${DAYS_OFF_AFTER}::int) w WHERE w <> 0`
}

/**
 * The centre's price list: SERVICE_PRICES of the booked service among ten services' worth. Written when the centre
 * opened, so the statistics know it (a centre's own price list changes little; another tenant's grows past them).
 * Written after them, the planner takes the centre for one of a few rows and reads its price list through the
 * (tenant_id, id) key: 160 rows rather than the service's 16.
 */
async function priceList() {
  await db.$executeRaw`
    INSERT INTO prices (id, tenant_id, location_id, service, appointment_type, amount, currency, unit, active,
      active_key, archived_at, updated_at)
    SELECT ${centre} || '_pri' || s || '_' || l || '_' || k || '_' || a, ${centre}, place, service,
      type::"AppointmentType", 9000, 'USD', 'PER_SESSION', a = 0,
      CASE WHEN a = 0 THEN coalesce(place, '*') || '/' || service || '/' || coalesce(type, '*') END,
      CASE WHEN a = 1 THEN now() END, now()
    FROM generate_series(1, 10) s, generate_series(0, 3) l, generate_series(0, 1) k, generate_series(0, 1) a,
      LATERAL (SELECT CASE WHEN l < 3 THEN ${centre} || '_loc' || l END AS place,
        CASE WHEN s = 1 THEN ${SERVICE} ELSE 'SERVICE_' || s END AS service,
        CASE WHEN k = 1 THEN 'THERAPY_SESSION' END AS type) AS p`
}

/** Runs a statement as the booking does: in a unit of work of the centre, under row-level security. */
const inCentre: RunStatement = (statement) => runInUnitOfWork(db, centre, (uow) => uow.query<unknown>(statement))

/** Runs a statement as the background loops do: as the login, across tenants. */
const asLogin: RunStatement = (statement) => db.$queryRawUnsafe<unknown[]>(statement.text, ...statement.values)

/** A statement's plan as it ran, with what a failing bound names: the statement and the plan's scans. */
interface Explained {
  plan: PlanNode
  message: (table: string) => string
}

async function explain(statement: SqlStatement | undefined, run: RunStatement): Promise<Explained> {
  if (!statement) throw new Error('the code sent no statement to explain')
  const plan = await planOf(statement, run)
  return {
    plan,
    message: (table) => `${statement.text}\nscans: ${scansOf(plan).join('; ')}\nrows read from ${table}`,
  }
}

/** Fails when the plan's scans of `table` read more than `bound` rows. */
function readsAtMost({ plan, message }: Explained, table: string, bound: number) {
  expect(rowsRead(plan, table), message(table)).toBeLessThanOrEqual(bound)
}

describe('a booking’s statements over a centre the statistics have not seen', () => {
  it('the slot check reads the provider’s appointments and time off near the slot, not the centre’s', async () => {
    const sent = await statementsSent(centre, (uow) =>
      slotProblem(uow, { providerId: `${centre}_prv0`, interval: SLOT, now: new Date('2031-03-01T00:00:00Z') })
    )
    expect(sent).toHaveLength(1)
    const facts = await explain(sent[0], inCentre)
    readsAtMost(facts, 'appointments', 2 * APPOINTMENTS_IN_REACH)
    readsAtMost(facts, 'provider_time_off', DAYS_OFF_IN_REACH)
  })

  it('the price reads the centre’s prices of the service, not its price list', async () => {
    const sent = await statementsSent(centre, (uow) =>
      priceForService(uow, {
        locationId: `${centre}_loc0`,
        service: SERVICE,
        appointmentType: 'THERAPY_SESSION',
        location: { id: `${centre}_loc0`, currency: 'USD' },
      })
    )
    expect(sent).toHaveLength(1)
    readsAtMost(await explain(sent[0], inCentre), 'prices', 2 * SERVICE_PRICES)
  })

  it('sealing reads the chain’s tail and the centre’s unsealed records, not its history', async () => {
    // The advisory lock, the chain's head, the unsealed records (answered none here, so nothing is sealed).
    const [, head, unsealed] = await statementsSent(centre, (uow) => sealTenantChain(uow))
    readsAtMost(await explain(head, inCentre), 'audit_chain', 2)
    const records = await explain(unsealed, inCentre)
    readsAtMost(records, 'audit_unsealed', 2 * UNSEALED)
    readsAtMost(records, 'audit_events', 2 * UNSEALED)
  })

  it('the outbox sweep’s claim reads the pending starts, not those made', async () => {
    // Prisma's own SQL for the sweep's findMany, from its query log. The sweep is stopped before its first start, so
    // Temporal is never called.
    const logged = new PrismaClient({
      adapter: new PrismaPg({ connectionString: testDatabaseUrl() }),
      log: [{ emit: 'event', level: 'query' }],
    })
    const sent: SqlStatement[] = []
    logged.$on('query', (event) => sent.push({ text: event.query, values: JSON.parse(event.params) as unknown[] }))
    try {
      const outbox = createWorkflowOutbox({
        db: logged,
        temporal: {} as Client,
        taskQueue: 'plans',
        logger: createLogger('silent', 'plans'),
      })
      await outbox.dispatchPending(undefined, AbortSignal.abort())
    } finally {
      await logged.$disconnect()
    }
    expect(sent).toHaveLength(1)
    readsAtMost(await explain(sent[0], asLogin), 'workflow_outbox', 2 * PENDING)
  })
})
