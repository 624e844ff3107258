/**
 * @module The webhook dispatcher: turns committed events into delivery workflows, in the API process.
 *
 * Two outboxes in a row, both plain rows in PostgreSQL, so a crash at any point loses nothing:
 * 1. **Fan-out.** An event row with `fanned_out_at` null (written by `recordEvent` in the causing transaction) is
 *    claimed with `FOR UPDATE SKIP LOCKED`; one delivery row per enabled endpoint subscribed to its type is inserted
 *    and the event marked, in one short transaction (nothing slow inside it).
 * 2. **Start.** Each delivery row with `workflow_started_at` null is started on Temporal under a deterministic id and
 *    `REJECT_DUPLICATE`, so a second start of the same delivery is refused rather than delivered twice; then marked.
 *    Starts run in a bounded queue (start-queue.ts) beside the fan-out, which goes on with the next events meanwhile.
 *
 * A fan-out run is triggered at once when this process commits an event (the in-process signal) and every
 * `WEBHOOK_DISPATCH_INTERVAL_MS` by a sweep, which also claims unstarted deliveries: whatever another process
 * recorded (the worker's events) or left behind (a crash between commit and start, Temporal down). Fan-out runs never
 * overlap in a process; across processes
 * the row locks and short leases keep instances from starting the same rows at the same time, and the deterministic
 * ids make it harmless if they do. The request that recorded the event never waits for any of this.
 */
import { WorkflowExecutionAlreadyStartedError, type Client } from '@temporalio/client'
import { TypedSearchAttributes } from '@temporalio/common'
import type { Db } from '../../infra/db.ts'
import { startBackgroundLoop } from '../../infra/background-loop.ts'
import type { Logger } from '../../infra/logger.ts'
import { searchAttributeKeys } from '../../workflows/search-attributes.ts'
import {
  WEBHOOK_DELIVERY_KIND,
  WEBHOOK_DELIVERY_WORKFLOW,
  eventDeliveryWorkflowId,
  type WebhookDeliveryInput,
} from '../../workflows/webhook-delivery-shared.ts'
import { onEventsRecorded } from '../events/events-recorded-signal.ts'
import { newId } from '../ids.ts'
import { createStarter } from './start-queue.ts'
import { subscribes } from './subscriptions.ts'
import type { WebhookSettings } from './webhook-settings.ts'

export interface WebhookDispatcherDeps {
  db: Db
  temporal: Client
  taskQueue: string
  logger: Logger
  settings: Pick<WebhookSettings, 'retry' | 'dispatchIntervalMs'>
  /** Workflow starts in flight at once (default 32). */
  startConcurrency?: number
}

export interface DispatchCounts {
  fannedOut: number
  started: number
}

export interface WebhookDispatcher {
  /** Fans out and starts everything pending now; resolves when the run is over. */
  dispatchPending(): Promise<DispatchCounts>
  /** Starts listening for committed events and sweeping; returns a function that stops both and awaits the run. */
  start(): () => Promise<void>
}

/** Rows claimed per round trip. */
const BATCH = 200
/** How long a claimed delivery is left to the instance that claimed it before another may start it. */
const LEASE_MS = 30_000
/** After a failed start, when the sweep may try it again. */
const RETRY_START_AFTER_MS = 2000
const START_DEADLINE_MS = 5000

/** A delivery about to be started. */
interface StartRow {
  id: string
  tenantId: string
  eventId: string
  endpointId: string
  eventType: string
  workflowId: string
}

/** Creates the dispatcher over the database and a Temporal client. */
export function createWebhookDispatcher(deps: WebhookDispatcherDeps): WebhookDispatcher {
  const { db, temporal, taskQueue, logger, settings } = deps
  const concurrency = deps.startConcurrency ?? 32

  /** Claims a batch of events and creates their deliveries. @returns the events claimed and the rows to start */
  async function fanOutBatch(): Promise<{ events: number; rows: StartRow[] }> {
    return db.$transaction(async (tx) => {
      const events = await tx.$queryRaw<Array<{ id: string; tenant_id: string; type: string; data: unknown }>>`
        SELECT id, tenant_id, type, data FROM events
        WHERE fanned_out_at IS NULL ORDER BY created_at LIMIT ${BATCH} FOR UPDATE SKIP LOCKED`
      if (events.length === 0) return { events: 0, rows: [] }
      const endpoints = await tx.webhookEndpoint.findMany({
        where: { tenantId: { in: [...new Set(events.map((e) => e.tenant_id))] }, enabled: true },
        select: { id: true, tenantId: true, eventTypes: true },
      })
      const leaseUntil = new Date(Date.now() + LEASE_MS)
      const rows = events.flatMap((event) =>
        endpoints
          .filter((endpoint) => endpoint.tenantId === event.tenant_id && subscribes(endpoint, event))
          .map((endpoint) => ({
            id: newId('webhookDelivery'),
            tenantId: event.tenant_id,
            eventId: event.id,
            endpointId: endpoint.id,
            eventType: event.type,
            kind: 'EVENT' as const,
            workflowId: eventDeliveryWorkflowId(event.id, endpoint.id),
            dispatchLeaseUntil: leaseUntil,
          }))
      )
      // A duplicate (the same event fanned out twice after a crash) hits the unique workflow id and is skipped.
      const created =
        rows.length === 0
          ? []
          : await tx.webhookDelivery.createManyAndReturn({
              data: rows,
              skipDuplicates: true,
              select: { id: true, tenantId: true, eventId: true, endpointId: true, eventType: true, workflowId: true },
            })
      await tx.event.updateMany({ where: { id: { in: events.map((e) => e.id) } }, data: { fannedOutAt: new Date() } })
      return { events: events.length, rows: created }
    })
  }

  /** Claims deliveries nobody has started (redeliveries, failed starts, crashes) under a lease. */
  async function claimUnstarted(): Promise<StartRow[]> {
    return db.$queryRaw<StartRow[]>`
      UPDATE webhook_deliveries SET dispatch_lease_until = now() + make_interval(secs => ${LEASE_MS / 1000})
      WHERE id IN (
        SELECT id FROM webhook_deliveries
        WHERE workflow_started_at IS NULL AND (dispatch_lease_until IS NULL OR dispatch_lease_until < now())
        ORDER BY created_at LIMIT ${BATCH} FOR UPDATE SKIP LOCKED)
      RETURNING id, tenant_id AS "tenantId", event_id AS "eventId", endpoint_id AS "endpointId",
        event_type AS "eventType", workflow_id AS "workflowId"`
  }

  async function startOne(row: StartRow): Promise<void> {
    const input: WebhookDeliveryInput = { tenantId: row.tenantId, deliveryId: row.id, retry: settings.retry }
    try {
      await temporal.withDeadline(Date.now() + START_DEADLINE_MS, () =>
        temporal.workflow.start(WEBHOOK_DELIVERY_WORKFLOW, {
          workflowId: row.workflowId,
          taskQueue,
          args: [input],
          workflowIdReusePolicy: 'REJECT_DUPLICATE',
          // Ids and the event type only: never payloads (CONVENTIONS.md, health data).
          typedSearchAttributes: new TypedSearchAttributes([
            { key: searchAttributeKeys.TenantId, value: row.tenantId },
            { key: searchAttributeKeys.WorkflowKind, value: WEBHOOK_DELIVERY_KIND },
            { key: searchAttributeKeys.WebhookEndpointId, value: row.endpointId },
            { key: searchAttributeKeys.EventId, value: row.eventId },
            { key: searchAttributeKeys.EventType, value: row.eventType },
          ]),
        })
      )
    } catch (error) {
      // Started before (and maybe finished): the start happened, which is all this step promises.
      if (!(error instanceof WorkflowExecutionAlreadyStartedError)) throw error
    }
  }

  /**
   * Starts rows with bounded concurrency, off the fan-out's path: the caller may await the returned promise (tests, the
   * sweep) or not (a wake-up, so the next events are fanned out while these start). Starts are marked in batches.
   * @returns how many of `rows` were started once they are all marked
   */
  const starter = createStarter(
    concurrency,
    startOne,
    async (started, failed) => {
      if (started.length > 0) {
        await db.webhookDelivery.updateMany({ where: { id: { in: started } }, data: { workflowStartedAt: new Date() } })
      }
      if (failed.length > 0) {
        await db.webhookDelivery.updateMany({
          where: { id: { in: failed } },
          data: { dispatchLeaseUntil: new Date(Date.now() + RETRY_START_AFTER_MS) },
        })
      }
    },
    logger
  )

  /** Fans out everything pending; hands the new deliveries to the starter. @returns events fanned out, start promises */
  async function fanOutAll(): Promise<{ events: number; starts: Promise<number>[] }> {
    let events = 0
    const starts: Promise<number>[] = []
    for (;;) {
      const batch = await fanOutBatch()
      events += batch.events
      if (batch.rows.length > 0) starts.push(starter.start(batch.rows))
      if (batch.events < BATCH) return { events, starts }
    }
  }

  /** Hands every unstarted delivery nobody holds to the starter. */
  async function sweepUnstarted(): Promise<Promise<number>[]> {
    const starts: Promise<number>[] = []
    for (;;) {
      const rows = await claimUnstarted()
      if (rows.length > 0) starts.push(starter.start(rows))
      if (rows.length < BATCH) return starts
    }
  }

  const sum = async (starts: Promise<number>[]) => (await Promise.all(starts)).reduce((a, b) => a + b, 0)

  async function dispatchPending(): Promise<DispatchCounts> {
    const fanned = await fanOutAll()
    const swept = await sweepUnstarted()
    return { fannedOut: fanned.events, started: await sum([...fanned.starts, ...swept]) }
  }

  function start(): () => Promise<void> {
    const stop = startBackgroundLoop({
      // A wake-up only fans out (the starts proceed in the background); the periodic run also sweeps.
      run: async (sweep) => {
        await fanOutAll()
        // The swept starts run on in the background like the fanned-out ones: the starter never rejects (a failed
        // start is marked, not thrown), so nothing is left unhandled.
        if (sweep) void (await sweepUnstarted())
      },
      intervalMs: settings.dispatchIntervalMs,
      subscribe: onEventsRecorded,
      onError: (error) => logger.error({ err: String(error) }, 'webhook dispatch failed'),
    })
    return async () => {
      await stop()
      await starter.idle()
    }
  }

  return { dispatchPending, start }
}
