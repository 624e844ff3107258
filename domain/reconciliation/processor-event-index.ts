/**
 * @module The processor's events, read once for the whole platform (issue 76, item 2; docs/payments.md,
 * "Reconciliation"). A run needs the objects that changed in its window whenever they were created; Stripe lists its
 * events for the whole account, by type and time only. Paging them in every tenant's run made each run cost the
 * whole account's events. Here the first run that needs a stretch of time reads it from the processor, under a lease
 * (one reader at a time; no transaction is held while the processor answers), and keeps per event the object and
 * whose it is; every run then reads its own tenant's rows. The index reaches back to where the processor's events
 * did when it began (event-retention.ts); a stretch is read once and never again, so its cost is the account's
 * events once, whatever the number of tenants and runs.
 *
 * Readings end on a whole second already past: an event the processor creates later in the current second is read
 * by the next reading, never skipped (Stripe's `created` is in whole seconds).
 */
import type { Db } from '../../infra/db.ts'
import { EVENT_RETENTION_DAYS } from './event-retention.ts'
import type { CreatedWindow, ProcessorChange, ProcessorReferences, ReconciliationSource } from './processor-snapshot.ts'
import { DAY_MS } from '../../common/time/calendar.ts'

/** How long a reader holds the index before another may take over (each page it reads extends it). */
const LEASE_MS = 2 * 60_000
/** How often a run waiting for another's reading looks again. */
const WAIT_MS = 250
/** How long a run waits for the index in all before it fails (and is retried): well within its activity's time. */
const GIVE_UP_MS = 20 * 60_000

export interface EventIndexDeps {
  db: Db
  source: Pick<ReconciliationSource, 'name' | 'eachEventPage'>
  now: () => Date
  /** Told while reading or waiting (the activity's heartbeat). */
  onPage?: () => void
}

const wholeSecondBefore = (at: Date) => new Date(Math.floor(at.getTime() / 1000) * 1000)
const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms))

/**
 * Makes the index reach `until` (or the last whole second, if `until` is later), reading from the processor what it
 * does not hold yet, or waiting for the run that is reading it.
 * @returns where the index begins: events before it are not known to it
 */
export async function indexEventsUntil(deps: EventIndexDeps, until: Date): Promise<Date> {
  const { db, source } = deps
  const startedAt = Date.now()
  // Fixed once: a target that moved with the clock would never be reached (readings end on a second already past).
  const asked = deps.now()
  const target = until < asked ? until : asked
  for (;;) {
    const now = deps.now()
    const cursor = await db.processorEventCursor.findUnique({ where: { processor: source.name } })
    if (cursor?.indexedFrom && cursor.indexedUntil && cursor.indexedUntil >= target) return cursor.indexedFrom
    if (Date.now() - startedAt > GIVE_UP_MS)
      throw new Error(`the ${source.name} events index did not reach ${target.toISOString()}`)
    // The current second is read once it is over.
    if (wholeSecondBefore(now) < target) {
      await sleep(Math.min(1000, target.getTime() - wholeSecondBefore(now).getTime()))
      continue
    }
    const taken = await db.$queryRaw<Array<{ indexed_from: Date | null; indexed_until: Date | null }>>`
      INSERT INTO processor_event_cursor (processor, lease_until) VALUES (${source.name}, ${new Date(now.getTime() + LEASE_MS)})
      ON CONFLICT (processor) DO UPDATE SET lease_until = EXCLUDED.lease_until
        WHERE processor_event_cursor.lease_until IS NULL OR processor_event_cursor.lease_until < ${now}
      RETURNING indexed_from, indexed_until`
    if (!taken[0]) {
      deps.onPage?.()
      await sleep(WAIT_MS)
      continue
    }
    await readStretch(deps, taken[0], wholeSecondBefore(now))
  }
}

/** Reads the processor's events from where the index ends to `to`, keeps them, and moves the index on. */
async function readStretch(
  deps: EventIndexDeps,
  cursor: { indexed_from: Date | null; indexed_until: Date | null },
  to: Date
): Promise<void> {
  const { db, source } = deps
  const retained = wholeSecondBefore(new Date(deps.now().getTime() - EVENT_RETENTION_DAYS * DAY_MS))
  const from = cursor.indexed_until ?? retained
  try {
    await source.eachEventPage?.({ from, to }, async (changes) => {
      await keep(db, source.name, changes)
      await db.processorEventCursor.update({
        where: { processor: source.name },
        data: { leaseUntil: new Date(deps.now().getTime() + LEASE_MS) },
      })
      deps.onPage?.()
    })
    await db.processorEventCursor.update({
      where: { processor: source.name },
      data: { indexedFrom: cursor.indexed_from ?? from, indexedUntil: to, leaseUntil: null },
    })
    // What the processor no longer keeps is of no use to a run.
    await db.processorEventIndex.deleteMany({ where: { processor: source.name, createdAt: { lt: retained } } })
  } catch (error) {
    await db.processorEventCursor
      .update({ where: { processor: source.name }, data: { leaseUntil: null } })
      .catch(() => undefined)
    throw error
  }
}

async function keep(db: Db, processor: string, changes: ProcessorChange[]) {
  if (changes.length === 0) return
  await db.processorEventIndex.createMany({
    data: changes.map((c) => ({
      eventId: c.eventId,
      processor,
      createdAt: c.created,
      objectType: c.objectType,
      objectId: c.objectId,
      tenantId: c.tenantId,
      paymentIntentId: c.paymentIntentId,
    })),
    skipDuplicates: true,
  })
}

/**
 * The objects of the tenant that changed in the window, from the index: those our metadata gives the tenant, and
 * refunds and disputes without it, with the payment intent that decides whose they are (keepTenantsChanges).
 */
export async function changedInWindow(
  db: Db,
  processor: string,
  tenantId: string,
  window: CreatedWindow
): Promise<ProcessorReferences> {
  const rows = await db.processorEventIndex.findMany({
    where: {
      processor,
      createdAt: { gte: window.from, lt: window.to },
      OR: [{ tenantId }, { tenantId: null, objectType: { in: ['refund', 'dispute'] }, paymentIntentId: { not: null } }],
    },
    select: { objectType: true, objectId: true, tenantId: true, paymentIntentId: true },
  })
  const ids: ProcessorReferences = { intents: [], refunds: [], disputes: [], transfers: [], intentOf: {} }
  for (const row of rows) {
    if (row.objectType === 'payment_intent') ids.intents.push(row.objectId)
    else if (row.objectType === 'transfer') ids.transfers.push(row.objectId)
    else if (row.objectType === 'refund' || row.objectType === 'dispute') {
      ;(row.objectType === 'refund' ? ids.refunds : ids.disputes).push(row.objectId)
      if (row.tenantId === null && row.paymentIntentId !== null) ids.intentOf![row.objectId] = row.paymentIntentId
    }
  }
  const unique = (values: string[]) => [...new Set(values)]
  return {
    intents: unique(ids.intents),
    refunds: unique(ids.refunds),
    disputes: unique(ids.disputes),
    transfers: unique(ids.transfers),
    intentOf: ids.intentOf,
  }
}
