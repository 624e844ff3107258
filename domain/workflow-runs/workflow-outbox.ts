/**
 * @module The transactional outbox of workflow starts. A write that needs a workflow records the start in the same
 * transaction; after commit it is dispatched to Temporal at once, and a periodic sweep dispatches whatever is left
 * (Temporal was down, the process crashed between commit and start). Starts are idempotent because the workflow id
 * is derived from the business id and a running workflow with that id is reused.
 */
import { WorkflowExecutionAlreadyStartedError, type Client } from '@temporalio/client'
import { TypedSearchAttributes, type SearchAttributePair } from '@temporalio/common'
import { startBackgroundLoop } from '../../infra/background-loop.ts'
import type { Db } from '../../infra/db.ts'
import type { Logger } from '../../infra/logger.ts'
import type { UnitOfWork } from '../../infra/unit-of-work.ts'
import {
  SEARCH_ATTRIBUTE_NAMES,
  searchAttributeKeys,
  type SearchAttributeValues,
} from '../../common/search-attributes-contract.ts'
import { newId } from '../ids.ts'

/** A workflow to start once the surrounding transaction commits. */
export interface WorkflowStartRequest {
  workflowType: string
  workflowId: string
  args: unknown[]
  searchAttributes: SearchAttributeValues
  /** Temporal's static summary (one line) and details (Markdown) shown in the UI: ids only, never health data. */
  summary?: string
  details?: string
  /**
   * Record the start again when one was recorded before for this workflow id (signal-with-start semantics): a running
   * workflow is reused, a closed one gets a new run. Without it a second start for the same id is an error.
   */
  restart?: boolean
  /**
   * When the workflow's first task should run (epoch ms): the start is still made at once, durable and visible, with
   * Temporal's start delay up to then. An update or a signal-with-start runs it earlier. Unset: at once.
   */
  startAt?: number | null
}

export interface WorkflowOutboxDeps {
  db: Db
  temporal: Client
  taskQueue: string
  logger: Logger
  /** Told each start's outcome, by workflow type (metrics; docs/operations.md). */
  onStart?: (workflowType: string, outcome: 'started' | 'failed') => void
  /** Longest an in-request dispatch may delay the response; the sweep retries anything slower. */
  dispatchTimeoutMs?: number
}

export interface WorkflowOutbox {
  /** Records a start in the unit's transaction and dispatches it after commit. */
  enqueue(uow: UnitOfWork, request: WorkflowStartRequest): Promise<void>
  /** Dispatches pending starts (all, or the given outbox ids); returns how many were started. */
  dispatchPending(ids?: string[]): Promise<number>
  /** Starts the periodic sweep; returns a function that stops it. */
  startSweeper(intervalMs: number): () => Promise<void>
}

/** What starting a recorded row needs of it. */
type PendingStart = Pick<
  Awaited<ReturnType<Db['workflowOutbox']['findMany']>>[number],
  | 'id'
  | 'workflowType'
  | 'workflowId'
  | 'taskQueue'
  | 'args'
  | 'searchAttributes'
  | 'staticSummary'
  | 'staticDetails'
  | 'startAt'
  | 'restart'
>

function toSearchAttributes(values: SearchAttributeValues): TypedSearchAttributes {
  const pairs: SearchAttributePair[] = []
  for (const name of SEARCH_ATTRIBUTE_NAMES) {
    const value = values[name]
    if (value !== undefined) pairs.push({ key: searchAttributeKeys[name], value })
  }
  return new TypedSearchAttributes(pairs)
}

/** How long the requests' starts gather before they are recorded DISPATCHED in one statement. */
const MARK_WINDOW_MS = 20

const withTimeout = <T>(promise: Promise<T>, ms: number) =>
  new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`timed out after ${ms} ms`)), ms)
    promise.then(resolve, reject).finally(() => clearTimeout(timer))
  })

/** The outbox row of a start, as the request writes it. */
const outboxRowOf = (uow: UnitOfWork, request: WorkflowStartRequest, taskQueue: string) => ({
  tenantId: uow.tenantId,
  workflowType: request.workflowType,
  workflowId: request.workflowId,
  taskQueue,
  args: request.args as object[],
  searchAttributes: request.searchAttributes,
  staticSummary: request.summary ?? null,
  staticDetails: request.details ?? null,
  startAt: request.startAt ? new Date(request.startAt) : null,
  restart: request.restart ?? false,
})

/** The longest a start may take before it counts as failed: an unreachable server fails the attempt. */
const START_DEADLINE_MS = 5000

/** Starts one row's workflow (reusing a running one, never re-running a closed one) and marks it started. */
async function startRow(temporal: Client, row: PendingStart, mark: (id: string) => unknown): Promise<void> {
  // Measured from the dispatch, so a start the sweep makes late still runs at the recorded time.
  const delayMs = row.startAt ? row.startAt.getTime() - Date.now() : 0
  try {
    // A deadline per call: an unreachable server must fail the attempt, not stall the sweep behind it.
    await temporal.withDeadline(Date.now() + START_DEADLINE_MS, () =>
      temporal.workflow.start(row.workflowType, {
        workflowId: row.workflowId,
        taskQueue: row.taskQueue,
        args: row.args as unknown[],
        typedSearchAttributes: toSearchAttributes(row.searchAttributes as SearchAttributeValues),
        ...(row.staticSummary ? { staticSummary: row.staticSummary } : {}),
        ...(row.staticDetails ? { staticDetails: row.staticDetails } : {}),
        ...(delayMs > 1000 ? { startDelay: delayMs } : {}),
        workflowIdConflictPolicy: 'USE_EXISTING',
        // A one-shot start made again (its mark was lost, or a sweep read the row while the request started it, on
        // this instance or another) must not run a workflow that already ran: Temporal's default reuse policy
        // would start a second run of a closed one.
        workflowIdReusePolicy: row.restart ? 'ALLOW_DUPLICATE' : 'REJECT_DUPLICATE',
      })
    )
  } catch (error) {
    // Already ran (and closed) under this id: the start happened, which is all the outbox promises.
    if (!(error instanceof WorkflowExecutionAlreadyStartedError)) throw error
  }
  await mark(row.id)
}

/** Creates the outbox over the database and a Temporal client. */
export function createWorkflowOutbox(deps: WorkflowOutboxDeps): WorkflowOutbox {
  const { db, temporal, taskQueue, logger } = deps
  const dispatchTimeoutMs = deps.dispatchTimeoutMs ?? 3000

  const markDispatched = (ids: string[]) =>
    db.workflowOutbox.updateMany({
      where: { id: { in: ids } },
      data: { state: 'DISPATCHED', dispatchedAt: new Date(), attempts: { increment: 1 }, lastError: null },
    })

  /**
   * Rows the requests started, recorded DISPATCHED together a moment later: one statement for the starts of that
   * moment, and none on a request's way to its answer (issue 22). A mark lost to a crash leaves its row PENDING; the
   * sweep then starts it again, which reuses the running workflow, and records it.
   */
  const startedByRequests = new Set<string>()
  let marking: NodeJS.Timeout | undefined
  async function flushMarks(): Promise<void> {
    clearTimeout(marking)
    marking = undefined
    const ids = [...startedByRequests]
    startedByRequests.clear()
    if (!ids.length) return
    await markDispatched(ids).catch((error: unknown) =>
      logger.warn({ outboxIds: ids.length, err: error }, 'outbox rows not marked as started; the sweep will')
    )
  }
  function markSoon(id: string): void {
    startedByRequests.add(id)
    marking ??= setTimeout(() => void flushMarks(), MARK_WINDOW_MS)
  }

  async function enqueue(uow: UnitOfWork, request: WorkflowStartRequest): Promise<void> {
    const row = outboxRowOf(uow, request, taskQueue)
    const { id } = request.restart
      ? await uow.tx.workflowOutbox.upsert({
          where: { workflowId: request.workflowId },
          create: { id: newId('outbox'), ...row },
          update: { ...row, state: 'PENDING', attempts: 0, lastError: null, dispatchedAt: null },
          select: { id: true },
        })
      : await uow.tx.workflowOutbox.create({ data: { id: newId('outbox'), ...row }, select: { id: true } })
    uow.afterCommit(async () => {
      // Best effort within the request; a failure here is not an error for the client, the sweep will finish it.
      // Started from the row as this request wrote it, not read back: the request knows it, and reading it again
      // cost every booking a round trip to the database before its answer (issue 22). Should the sweep have started
      // it meanwhile, starting again is harmless (the running workflow is reused).
      await withTimeout(dispatchRows([{ id, ...row }], markSoon), dispatchTimeoutMs).catch((error: unknown) =>
        logger.warn({ outboxId: id, workflowId: request.workflowId, err: error }, 'workflow start deferred')
      )
    })
  }

  async function dispatchPending(ids?: string[]): Promise<number> {
    const rows = await db.workflowOutbox.findMany({
      where: { state: 'PENDING', ...(ids ? { id: { in: ids } } : {}) },
      orderBy: { createdAt: 'asc' },
      take: 100,
    })
    return dispatchRows(rows, (id) => markDispatched([id]))
  }

  /** Starts the rows in turn, recording each outcome; stops at the first failure. Returns how many were started. */
  async function dispatchRows(rows: PendingStart[], mark: (id: string) => unknown): Promise<number> {
    let started = 0
    for (const row of rows) {
      try {
        await startRow(temporal, row, mark)
        started++
        deps.onStart?.(row.workflowType, 'started')
      } catch (error) {
        deps.onStart?.(row.workflowType, 'failed')
        // Only while still pending: a slow attempt that fails after another one succeeded must not mark it failed.
        await db.workflowOutbox.updateMany({
          where: { id: row.id, state: 'PENDING' },
          data: { attempts: { increment: 1 }, lastError: String(error).slice(0, 500) },
        })
        // Temporal is most likely down: stop this round instead of failing every row in turn.
        logger.warn({ outboxId: row.id, workflowId: row.workflowId, err: error }, 'workflow start failed')
        break
      }
    }
    return started
  }

  function startSweeper(intervalMs: number): () => Promise<void> {
    // Ticks during a slow sweep (Temporal away, each start timing out) coalesce into one more sweep, not a queue.
    const stop = startBackgroundLoop({
      run: async () => {
        await dispatchPending()
      },
      intervalMs,
      runAtStart: false,
      onError: (error) => logger.error({ err: error }, 'outbox sweep failed'),
    })
    return async () => {
      await stop()
      await flushMarks()
    }
  }

  return { enqueue, dispatchPending, startSweeper }
}
