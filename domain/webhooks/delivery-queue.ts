/**
 * @module The webhook delivery queue in PostgreSQL (docs/webhooks.md, "Delivery"): the statements the delivery pumps
 * and the endpoint retry workflows run. Fan-out turns committed events into delivery rows; a claim takes due rows
 * under a lease (`FOR UPDATE SKIP LOCKED`, so pumps never wait on each other); recording what the attempts did is
 * attempt-records.ts. These run as the login role, across tenants, like every outbox sweep;
 * each row keeps its tenant id and every tenant-visible effect (an event, a disabled endpoint) goes through the
 * tenant's own unit of work.
 */
import { Prisma } from '../../generated/prisma/client.ts'
import type { Db } from '../../infra/db.ts'
import { sqlNewId } from '../ids.ts'
import { endpointOfRow, eventOfRow } from './delivery-endpoint.ts'
import type { QueuedDelivery } from './queued-delivery.ts'
import { grantHoldsSql } from '../auth/credential-grants.ts'
import { subscribesSql } from './subscriptions.ts'
import { withEndpointSecrets } from './endpoint-secrets.ts'

/** Events fanned out per transaction. */
const FAN_OUT_BATCH = 200

/**
 * Creates the deliveries of events not yet fanned out, one per enabled endpoint subscribed (subscriptions.ts, the same
 * rule in SQL), due now (held when the endpoint's breaker is open), and marks the events: one statement per batch of
 * events, with no transaction held open between statements. On the embedded database, where every connection takes
 * turns on one backend, a fan-out of five round trips held it through each of the (niced) worker's turns: a fifth of
 * its time at 1,000 deliveries a second, which the API's requests waited behind. `SKIP LOCKED` lets pumps fan out side
 * by side, and the unique (event, endpoint) index makes a second fan-out of an event a no-op.
 *
 * The endpoints whose breaker was open when read are read again under a share lock (`relocked`), held to the end of
 * the statement's transaction: a close waits for the fan-out to commit, so its release sees the rows made held here
 * (see held-deliveries.ts), and a close that came first is seen (a locking read returns the row's newest version).
 * Healthy endpoints are not locked (that would be every fan-out locking every busy endpoint): a breaker that opens
 * after this read leaves a few due rows of an open endpoint, which the claim skips and the pumps' periodic check holds.
 * @returns how many events were fanned out
 */
export async function fanOutEvents(db: Db, now: Date): Promise<number> {
  let total = 0
  for (;;) {
    const [batch] = await db.$queryRaw<Array<{ events: number }>>`
      WITH claimed AS (
        SELECT id, tenant_id, type, data FROM events
        WHERE fanned_out_at IS NULL ORDER BY created_at LIMIT ${FAN_OUT_BATCH} FOR UPDATE SKIP LOCKED),
      endpoints AS (
        SELECT id, tenant_id, event_types, circuit_opened_at IS NOT NULL AS open FROM webhook_endpoints
        WHERE enabled AND tenant_id IN (SELECT tenant_id FROM claimed)
          -- An endpoint whose grantor no longer grants it gets no delivery (credential-grants.ts).
          AND ${grantHoldsSql(Prisma.sql`tenant_id`, Prisma.sql`created_by`, now, 'webhooks')}),
      relocked AS (
        SELECT id, circuit_opened_at IS NOT NULL AS open, enabled FROM webhook_endpoints
        WHERE id IN (SELECT id FROM endpoints WHERE open) FOR SHARE),
      targets AS (
        SELECT e.id, e.tenant_id, e.event_types, coalesce(r.open, false) AS open
        FROM endpoints e LEFT JOIN relocked r ON r.id = e.id
        WHERE NOT e.open OR r.enabled),
      inserted AS (
        INSERT INTO webhook_deliveries (id, tenant_id, event_id, endpoint_id, event_type, kind, next_attempt_at, created_at)
        SELECT ${sqlNewId('webhookDelivery')}, c.tenant_id, c.id, t.id, c.type, 'EVENT'::"WebhookDeliveryKind",
          -- An open breaker's deliveries are held (held-deliveries.ts): out of the claims' way until it closes.
          CASE WHEN t.open THEN NULL ELSE ${now}::timestamptz END,
          -- On the pump's clock, like everything the queue compares with it (a held delivery's window starts here).
          ${now}::timestamptz
        FROM claimed c JOIN targets t ON t.tenant_id = c.tenant_id
        WHERE ${subscribesSql('c', 't')}
        ON CONFLICT DO NOTHING
        RETURNING 1),
      marked AS (
        UPDATE events e SET fanned_out_at = ${now} FROM claimed c WHERE e.id = c.id RETURNING 1)
      SELECT (SELECT count(*) FROM marked)::int AS events, (SELECT count(*) FROM inserted)::int AS deliveries`
    const events = batch?.events ?? 0
    total += events
    if (events < FAN_OUT_BATCH) return total
  }
}

/**
 * Whether any committed event waits for its fan-out: an idle pump's look between its full ones. One probe of the
 * events' `fanned_out_at` index, so an idle pump can ask every `WEBHOOK_PUMP_POLL_MS` for a small part of a full look's
 * CPU (a fan-out and a claim, ~9 ms between the worker and PostgreSQL), and the first event after a quiet spell is not
 * left waiting for the full look's back-off (docs/webhooks.md, "Events are the outbox").
 */
export async function eventsAwaitFanOut(db: Db): Promise<boolean> {
  const [row] = await db.$queryRaw<Array<{ waiting: boolean }>>`
    SELECT EXISTS (SELECT 1 FROM events WHERE fanned_out_at IS NULL) AS waiting`
  return row?.waiting === true
}

/** What a pump may claim. */
export interface ClaimOptions {
  /** This pump's share of the endpoints: endpoint ids hash to one of `partitions`. */
  partition: number
  partitions: number
  /** Most rows to claim. */
  limit: number
  /** Most rows per endpoint. */
  perEndpoint: number
  /** Endpoints not to claim for (their concurrency is used up). */
  excludeEndpoints: string[]
  /**
   * Most rows one tenant may hold in this pump (in flight, or claimed and waiting for a slot): its fair share.
   * Unset: no cap but `limit` (one-off claims, such as the benches').
   */
  perTenant?: number
  /** What each tenant has in this pump now, counted against `perTenant`; a tenant at its cap is not claimed for. */
  takenByTenant?: ReadonlyMap<string, number>
  now: Date
  leaseMs: number
}

/**
 * Claims due deliveries of this partition under a lease, fairly between tenants (docs/webhooks.md, "Fair shares
 * between tenants"): a tenant at its cap (`perTenant`) gets nothing, any other at most what it has left of it, and the
 * rows are taken in turns (every tenant's oldest, then every tenant's second oldest...), at most `perEndpoint` per
 * endpoint.
 *
 * The reads are per endpoint, so one endpoint's backlog, or another partition's, costs a claim one index probe and
 * never hides another's due rows. First the endpoints with a due row: a skip scan of the due index, which leads with
 * the endpoint, one probe per endpoint of any partition. Then, for each endpoint of this partition with a free slot,
 * its oldest due rows not leased, `perEndpoint` at most: only what this pump holds of that endpoint is stepped over.
 * The tenants are those of the rows found, ordered by their oldest, the `limit` first, a tenant at its cap left out;
 * of their rows the claim takes them in turns. (The tenant-led scan this replaces stepped over every leased row and
 * every row of the other partitions that was due before this pump's: at 1,500 deliveries a second, 800-1,100 rows
 * a claim, and more the further behind the pumps were; docs/benchmarks.md, "Webhooks: a claim led by the endpoint".)
 * Only the rows taken are locked (`FOR UPDATE SKIP LOCKED`, the row's newest version tested again): a row another
 * pump or a record holds, or that changed since the read, is left for the next round.
 *
 * Held deliveries of an endpoint whose breaker is open are left to its retry workflow, except redeliveries asked for
 * by hand; deliveries of a disabled endpoint are claimed so they can be ended. Held rows have no `next_attempt_at`
 * (held-deliveries.ts), so the scan never meets them (they are not in the due index); the endpoint's breaker test
 * still skips the few due rows an open endpoint may have (a fan-out that read the endpoint just before its breaker
 * opened): correctness never rests on the nulls.
 */
export async function claimDue(db: Db, options: ClaimOptions): Promise<QueuedDelivery[]> {
  const { partition, partitions, limit, perEndpoint, excludeEndpoints, now, leaseMs } = options
  const perTenant = options.perTenant ?? limit
  const taken = [...(options.takenByTenant ?? new Map<string, number>())].filter(([, n]) => n > 0)
  const leaseUntil = new Date(now.getTime() + leaseMs)
  /** A row `d` in the due range (the due index's rows up to now). */
  const due = Prisma.sql`d.status = 'PENDING' AND d.workflow_started_at IS NULL AND d.next_attempt_at <= ${now}`
  /** Not leased by a pump now. (The partition and the excluded endpoints are tested once per endpoint, in `mine`.) */
  const unleased = Prisma.sql`(d.dispatch_lease_until IS NULL OR d.dispatch_lease_until < ${now})`
  /**
   * The due test again, on the newest version of each row chosen, in a form no partial index of PENDING rows can
   * answer (the status as text), so the rows are locked by primary key. With statistics read while few rows were
   * PENDING, the planner took the due index, then the pending one, for the 64 ids and stepped over thousands of rows
   * a claim (docs/benchmarks.md, "Webhooks: a claim led by the endpoint").
   */
  const stillDue = Prisma.sql`
    d.status::text = 'PENDING' AND d.workflow_started_at IS NULL AND d.next_attempt_at <= ${now}`
  const rows = await db.$queryRaw<Array<Record<string, unknown>>>`
    WITH RECURSIVE due_endpoints AS (
      -- The skip scan of webhook_deliveries_due_idx (endpoint, next_attempt_at): each probe finds the next endpoint
      -- with a due row, leased or not, of any partition.
      (SELECT d.endpoint_id, d.next_attempt_at AS oldest FROM webhook_deliveries d WHERE ${due}
        ORDER BY d.endpoint_id, d.next_attempt_at LIMIT 1)
      UNION ALL
      SELECT n.endpoint_id, n.oldest FROM due_endpoints e CROSS JOIN LATERAL (
        SELECT d.endpoint_id, d.next_attempt_at AS oldest FROM webhook_deliveries d
        WHERE d.endpoint_id > e.endpoint_id AND ${due}
        ORDER BY d.endpoint_id, d.next_attempt_at LIMIT 1) n
    ), mine AS (
      -- A tenant's endpoints, oldest due row first, no more of them than it could be given rows: what a claim reads
      -- stays bounded however many endpoints a tenant has behind.
      SELECT id, takes_events FROM (
        SELECT w.id, (w.circuit_opened_at IS NULL OR NOT w.enabled) AS takes_events,
          row_number() OVER (PARTITION BY w.tenant_id ORDER BY e.oldest, w.id) AS rank
        FROM due_endpoints e JOIN webhook_endpoints w ON w.id = e.endpoint_id
        WHERE mod(abs(hashtext(w.id)::bigint), ${partitions}::bigint) = ${partition}::bigint
          AND w.id <> ALL(${excludeEndpoints}::text[])) ranked
      WHERE rank <= least(${perTenant}::int, ${limit}::int)
    ), candidates AS (
      SELECT c.id, c.tenant_id, c.next_attempt_at FROM mine m CROSS JOIN LATERAL (
        SELECT d.id, d.tenant_id, d.next_attempt_at FROM webhook_deliveries d
        WHERE d.endpoint_id = m.id AND ${due} AND ${unleased} AND (m.takes_events OR d.kind = 'REDELIVERY')
        ORDER BY d.next_attempt_at LIMIT ${perEndpoint}::int) c
    ), shares AS (
      SELECT t.tenant_id, least(${perTenant}::int - coalesce(h.taken, 0), ${limit}::int) AS share
      FROM (SELECT tenant_id, min(next_attempt_at) AS oldest FROM candidates GROUP BY tenant_id) t
      LEFT JOIN unnest(${taken.map(([id]) => id)}::text[], ${taken.map(([, n]) => n)}::int[]) AS h(tenant_id, taken)
        ON h.tenant_id = t.tenant_id
      WHERE coalesce(h.taken, 0) < ${perTenant}::int
      ORDER BY t.oldest LIMIT ${limit}::int
    ), chosen AS (
      SELECT id FROM (
        SELECT c.id, c.next_attempt_at, s.share,
          row_number() OVER (PARTITION BY c.tenant_id ORDER BY c.next_attempt_at, c.id) AS turn
        FROM candidates c JOIN shares s ON s.tenant_id = c.tenant_id) per_tenant
      -- In turns: every tenant's first row before any tenant's second.
      WHERE turn <= share ORDER BY turn, next_attempt_at LIMIT ${limit}::int
    ), picked AS (
      SELECT d.id, d.endpoint_id FROM webhook_deliveries d
      WHERE d.id = ANY(ARRAY(SELECT id FROM chosen)) AND ${stillDue} AND ${unleased}
      FOR UPDATE SKIP LOCKED
    )
    ${leaseAndLoad(leaseUntil, now)}`
  return (await withEndpointSecrets(db, rows)).map(toQueuedDelivery)
}

/**
 * Loads the oldest held delivery of an endpoint for its retry workflow's probe, under a lease like a claim.
 * @returns undefined when the endpoint holds none
 */
export async function claimOldestHeld(
  db: Db,
  endpointId: string,
  now: Date,
  leaseMs: number
): Promise<QueuedDelivery | undefined> {
  const leaseUntil = new Date(now.getTime() + leaseMs)
  const rows = await db.$queryRaw<Array<Record<string, unknown>>>`
    WITH picked AS (
      SELECT id, endpoint_id FROM webhook_deliveries
      WHERE endpoint_id = ${endpointId} AND status = 'PENDING' AND workflow_started_at IS NULL
        AND (dispatch_lease_until IS NULL OR dispatch_lease_until < ${now})
      ORDER BY created_at, id LIMIT 1 FOR UPDATE SKIP LOCKED)
    ${leaseAndLoad(leaseUntil, now)}`
  const [row] = await withEndpointSecrets(db, rows)
  return row ? toQueuedDelivery(row) : undefined
}

/**
 * The end of a claim, after the caller's `picked` (id, endpoint_id) in the same WITH list: lease the picked rows and
 * return what an attempt needs of them (see toQueuedDelivery). Whether each endpoint's grantor still grants it is
 * asked once per endpoint, not once per row: in the RETURNING list it ran the grant chain's function for every row,
 * half of a claim's time at 1,500 deliveries a second (docs/benchmarks.md, "Webhooks: what a claim costs per row").
 */
const leaseAndLoad = (leaseUntil: Date, now: Date) => Prisma.sql`
    , targets AS MATERIALIZED (
      SELECT w.id, w.url, w.signing_scheme, w.previous_secret_expires_at, w.enabled, w.failing_since, w.secrets_version,
        -- Claimed before its grantor was revoked: ended like a disabled endpoint's (credential-grants.ts).
        ${grantHoldsSql(Prisma.sql`w.tenant_id`, Prisma.sql`w.created_by`, now, 'webhooks')} AS granted
      FROM webhook_endpoints w WHERE w.id IN (SELECT endpoint_id FROM picked))
    UPDATE webhook_deliveries d SET dispatch_lease_until = ${leaseUntil}
    FROM picked, events e, targets w
    WHERE d.id = picked.id AND e.id = d.event_id AND w.id = d.endpoint_id
    RETURNING d.id, d.tenant_id, d.endpoint_id, d.kind::text AS kind, d.attempt_count, d.first_attempt_at,
      e.id AS event_id, e.type AS event_type, e.created_at AS event_created_at, e.data AS event_data,
      w.url, w.signing_scheme::text AS signing_scheme, w.previous_secret_expires_at, w.enabled, w.failing_since,
      w.secrets_version, w.granted`

function toQueuedDelivery(row: Record<string, unknown>): QueuedDelivery {
  return {
    id: row.id as string,
    tenantId: row.tenant_id as string,
    endpointId: row.endpoint_id as string,
    kind: row.kind as QueuedDelivery['kind'],
    attemptCount: row.attempt_count as number,
    firstAttemptAt: row.first_attempt_at as Date | null,
    event: eventOfRow(row),
    endpoint: endpointOfRow(row),
  }
}

/** Gives claimed deliveries back (a pump stopping before it attempted them): due again at once, for any pump. */
export async function releaseClaims(db: Db, deliveryIds: string[]): Promise<void> {
  if (deliveryIds.length === 0) return
  await db.$executeRaw`
    UPDATE webhook_deliveries SET dispatch_lease_until = NULL
    WHERE id = ANY(${deliveryIds}::text[]) AND status = 'PENDING'`
}

/**
 * Ends the leases of attempts a stopping pump leaves in flight at each attempt's own deadline, not at the claim's
 * lease (60 s): by then the attempt has ended, answered or timed out, in a process that is exiting and will not record
 * it, and the delivery is taken again. Left at the lease, a worker stopped with SIGTERM beside slow receivers held
 * them for most of a minute after its restart (docs/webhooks.md, the failure table). Never lengthens a lease.
 */
export async function shortenClaims(db: Db, claims: Array<{ id: string; until: Date }>): Promise<void> {
  if (claims.length === 0) return
  await db.$executeRaw`
    UPDATE webhook_deliveries d SET dispatch_lease_until = c.until
    FROM unnest(${claims.map((c) => c.id)}::text[], ${claims.map((c) => c.until)}::timestamptz[]) AS c(id, until)
    WHERE d.id = c.id AND d.status = 'PENDING' AND d.dispatch_lease_until > c.until`
}
