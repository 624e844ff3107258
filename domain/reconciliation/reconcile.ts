/**
 * @module One reconciliation of a tenant with its payment processor (docs/payments.md, "Reconciliation"), as the
 * reconciliation workflow's activity runs it: list the processor's objects created in the window and those its
 * events say changed in it (no transaction held), read ours (created or changed in the window, named by theirs, or
 * still open), read one by one what ours name and the listing did not show (no transaction held), repair what is
 * safe to repair through the rules of the processor's own events (repairs.ts: a missed success, a refund's final
 * state, a Dashboard refund never recorded), then compare again and record every difference left as a finding, in
 * one transaction that reads our records again so the findings describe what is committed.
 *
 * A repair is stamped with the time the processor's object was read, not the time it is applied: an event the
 * processor creates after the read still applies after the repair, and one created before it is older than what the
 * repair applied (issue 58). The processor's events reach back a limited time (event-retention.ts): the older part
 * of a window is checked by listing alone, and the outcome says where the events began.
 */
import type { ReconciliationFindingKind } from '../../generated/prisma/enums.ts'
import type { Db } from '../../infra/db.ts'
import { runInUnitOfWork } from '../../infra/unit-of-work.ts'
import { compareWithProcessor, unmatchedReferences, type Comparison } from './compare.ts'
import { eventsUnavailableBefore } from './event-retention.ts'
import { recordFinding } from './findings.ts'
import { loadConnectedAccounts, loadPaymentIntents, loadPlatformRecords } from './platform-records.ts'
import { changedInWindow, indexEventsUntil } from './processor-event-index.ts'
import {
  keepTenantsChanges,
  mergeSnapshots,
  type CreatedWindow,
  type ProcessorReferences,
  type ReconciliationSource,
} from './processor-snapshot.ts'
import { repairsOf, type Repair } from './repairs.ts'

/**
 * How much wider than the window the processor is listed: our record is written just before the processor is asked
 * (a payment's row, then its intent), and a refund made in the Dashboard is recorded when its event arrives, so the
 * two sides of one object can fall either side of a window's edge. Objects in the margin are matched, never reported
 * missing (the neighbouring run reports them).
 */
export const LISTING_MARGIN_MS = 60 * 60 * 1000

/**
 * Objects created in the last half hour are left to the next run: their webhooks may still be on their way, and a
 * difference that settles by itself is not one to show an operator.
 */
export const SETTLING_MS = 30 * 60 * 1000

export interface ReconcileDeps {
  db: Db
  source: ReconciliationSource
  now: () => Date
  /** Told of each finding a run created, once committed (the metric). */
  onFindingCreated?: (kind: ReconciliationFindingKind) => void
  /** Told after each page the processor answered (the activity's heartbeat). */
  onPage?: () => void
  /**
   * Applies a repair as the processor's event would be applied (processor-events.ts), in units of its own; without
   * it, a run repairs nothing and reports every difference.
   * @returns the event's outcome (`applied` when it changed something)
   */
  repair?: (repair: Repair, run: RepairRun) => Promise<string>
}

/** The run a repair belongs to, and when the object it was built from was read. */
export interface RepairRun {
  runId: string
  /**
   * When the processor was asked for the object, in whole seconds (its events' `created`): the time the repair is
   * stamped with, so the processor's events about the object are ordered against it by when they were created.
   */
  readAt: Date
}

export interface ReconcileRequest {
  tenantId: string
  window: CreatedWindow
  /** The run (its workflow id), recorded on its findings. */
  runId: string
}

export interface ReconcileOutcome {
  checked: Comparison['checked']
  /** Differences found by this run, new or found before. */
  findings: number
  /** Of which new: each emitted `reconciliation.mismatch`. */
  newFindings: number
  /** Differences repaired before the findings were recorded (issue 46). */
  repaired: number
  /**
   * The window's part before this instant was checked by listing alone: the processor's events no longer reached it
   * (event-retention.ts). Absent when they covered the whole window.
   */
  eventsUnavailableBefore?: Date
}

/**
 * The time a read starts, floored to the second: the processor stamps its events in whole seconds, so an event it
 * created in the same second as the read, perhaps after it, is not taken for older than the read.
 */
const readStart = (now: Date) => new Date(Math.floor(now.getTime() / 1000) * 1000)

/** The window of a scheduled run ending now: `hours` long, ending {@link SETTLING_MS} ago. */
export function defaultWindow(now: Date, hours: number): CreatedWindow {
  const to = new Date(now.getTime() - SETTLING_MS)
  return { from: new Date(to.getTime() - hours * 3_600_000), to }
}

/** Reconciles one tenant over one window. Safe to repeat: a difference found again is the same finding. */
export async function reconcileTenant(deps: ReconcileDeps, request: ReconcileRequest): Promise<ReconcileOutcome> {
  const { db, source } = deps
  const { tenantId, window, runId } = request
  const listingWindow = {
    from: new Date(window.from.getTime() - LISTING_MARGIN_MS),
    to: new Date(window.to.getTime() + LISTING_MARGIN_MS),
  }
  // The processor is asked for this tenant's objects alone (issue 76): its transfers by the accounts they went to.
  const connectedAccounts = await runInUnitOfWork(db, tenantId, (uow) => loadConnectedAccounts(uow, source.name))
  const listedAt = readStart(deps.now())
  const listed = await source.list(tenantId, listingWindow, { connectedAccounts }, deps.onPage)
  // Objects created before the window that changed in it (a refund failed days later, a transfer reversed), from
  // the events the processor still keeps, read once for the platform (processor-event-index.ts): the window's older
  // part, if any, is checked by the listing alone.
  let unavailableBefore = source.eachEventPage ? eventsUnavailableBefore(window, deps.now()) : undefined
  let reported: ProcessorReferences | undefined
  const eventsFrom = unavailableBefore ?? window.from
  if (source.eachEventPage && eventsFrom < window.to) {
    const indexFrom = await indexEventsUntil({ db, source, now: deps.now, onPage: deps.onPage }, window.to)
    if (indexFrom > eventsFrom) unavailableBefore = indexFrom < window.to ? indexFrom : window.to
    const from = indexFrom > eventsFrom ? indexFrom : eventsFrom
    if (from < window.to) reported = await changedInWindow(db, source.name, tenantId, { from, to: window.to })
  }
  // Refunds and disputes without our metadata are the tenant's only when their payment is (issue 76): no run reads
  // another tenant's one by one.
  const changed =
    reported &&
    keepTenantsChanges(
      reported,
      await runInUnitOfWork(db, tenantId, (uow) =>
        loadPaymentIntents(uow, source.name, Object.values(reported.intentOf ?? {}))
      )
    )
  const load = () =>
    runInUnitOfWork(db, tenantId, (uow) => loadPlatformRecords(uow, source.name, window, listed, changed))
  const before = await load()
  const references = unmatchedReferences(before, listed, changed)
  const { intents, refunds, disputes, transfers, disputedIntents = [] } = references
  const pending = [intents, refunds, disputes, transfers, disputedIntents].some((ids) => ids.length > 0)
  const retrievedAt = readStart(deps.now())
  const theirs = pending ? mergeSnapshots(listed, await source.retrieve(tenantId, references)) : listed
  // A listed object was read when the listing began; any other (read one by one) when the reading did.
  const shown = new Set(
    [...listed.intents, ...listed.refunds, ...listed.disputes, ...listed.transfers].map((o) => o.id)
  )
  let repaired = 0
  if (deps.repair) {
    const ours = await runInUnitOfWork(db, tenantId, (uow) =>
      loadPlatformRecords(uow, source.name, window, theirs, changed)
    )
    // One at a time, each in units of its own (never inside the findings' transaction).
    for (const repair of repairsOf(tenantId, ours, theirs)) {
      const readAt = shown.has(repair.objectId) ? listedAt : retrievedAt
      if ((await deps.repair(repair, { runId, readAt })) === 'applied') repaired++
    }
  }
  return runInUnitOfWork(
    db,
    tenantId,
    async (uow) => {
      const ours = await loadPlatformRecords(uow, source.name, window, theirs, changed)
      const { differences, checked } = compareWithProcessor(ours, theirs, window)
      const now = deps.now()
      const created: ReconciliationFindingKind[] = []
      for (const difference of differences) {
        const recorded = await recordFinding(uow, { ...difference, runId }, now)
        if (recorded.created) created.push(difference.kind)
      }
      uow.afterCommit(async () => {
        for (const kind of created) deps.onFindingCreated?.(kind)
      })
      return {
        checked,
        findings: differences.length,
        newFindings: created.length,
        repaired,
        ...(unavailableBefore ? { eventsUnavailableBefore: unavailableBefore } : {}),
      }
    },
    { timeoutMs: 60_000 }
  )
}
