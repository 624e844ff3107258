/**
 * @module The transactional outbox of workflow starts. A write that needs a workflow records the start in the same
 * transaction; after commit it is dispatched to Temporal at once, and a periodic sweep dispatches whatever is left
 * (Temporal was down, the process crashed between commit and start). Starts are idempotent because the workflow id
 * is derived from the business id and a running workflow with that id is reused.
 */
import { WorkflowExecutionAlreadyStartedError, type Client } from '@temporalio/client'
import { TypedSearchAttributes, type SearchAttributePair } from '@temporalio/common'
import { Prisma } from '../../generated/prisma/client.ts'
import { startBackgroundLoop } from '../../infra/background-loop.ts'
import type { Db } from '../../infra/db.ts'
import type { Logger } from '../../infra/logger.ts'
import type { UnitOfWork } from '../../infra/unit-of-work.ts'
import { tenantPriority } from '../../common/tenant-priority.ts'
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
   * When the workflow's first task should run (epoch ms): the start is still made at once (after the answer, with
   * `afterAnswer`), durable and visible, with Temporal's start delay up to then. An update or a signal-with-start runs
   * it earlier. Unset: at once.
   */
  startAt?: number | null
  /**
   * Make the start after the request's answer when its first task is more than a minute away (`startAt`): such a
   * workflow only waits until then, and its outbox row, committed with the request, already makes it durable. For
   * workflows whose callers wait for a start on its way (WorkflowOutbox `started`), as the booking's calls do.
   */
  afterAnswer?: boolean
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
  /**
   * Dispatches pending starts (all, or the given outbox ids), one after the other until `stopping` is aborted;
   * returns how many were started.
   */
  dispatchPending(ids?: string[], stopping?: AbortSignal): Promise<number>
  /**
   * Starts the periodic sweep; returns a function that stops it: a sweep in progress ends after the start in hand (the
   * rows it leaves PENDING are the next sweep's, on any instance). It may run beside the HTTP drain.
   */
  startSweeper(intervalMs: number): () => Promise<void>
  /**
   * Waits for this process's starts made after their requests' answers and records the starts made (DISPATCHED).
   * For a stop, once no request is left to answer.
   */
  settle(): Promise<void>
  /**
   * Settles once this process's start of `workflowId` that left after the request's answer (a deferred one) has been
   * made or has failed; at once when there is none. Calls on a workflow (views, updates, signals) wait for it first,
   * so that a client's own booking is never NOT_STARTED to it only because its start is a few milliseconds behind.
   */
  started: (workflowId: string) => Promise<void>
}

/** What starting a recorded row needs of it. */
type PendingStart = Pick<
  Awaited<ReturnType<Db['workflowOutbox']['findMany']>>[number],
  | 'id'
  | 'tenantId'
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

/** How far away a start's first task must be for it to be made after the answer (`afterAnswer`). */
const ANSWER_BEFORE_START_AFTER_MS = 60_000

/** Starts made after their answers at most at a time per process; past it a request waits for its own, as before. */
const MAX_STARTS_AFTER_ANSWERS = 64

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

/**
 * Records a start straight through the driver (UnitOfWork.query): every booking writes one, and Prisma's own work
 * for the create cost more CPU than the INSERT. Columns not named keep their defaults (PENDING, no attempts, now).
 */
async function insertRow(
  uow: UnitOfWork,
  row: ReturnType<typeof outboxRowOf> & { id: string }
): Promise<{ id: string }> {
  await uow.query(Prisma.sql`
    INSERT INTO workflow_outbox (id, tenant_id, workflow_type, workflow_id, task_queue, args, search_attributes,
      static_summary, static_details, start_at, restart)
    VALUES (${row.id}, ${row.tenantId}, ${row.workflowType}, ${row.workflowId}, ${row.taskQueue},
      ${JSON.stringify(row.args)}::jsonb, ${JSON.stringify(row.searchAttributes)}::jsonb, ${row.staticSummary},
      ${row.staticDetails}, ${row.startAt}::timestamptz, ${row.restart})`)
  return { id: row.id }
}

/** The longest a start may take before it counts as failed: an unreachable server fails the attempt. */
export const START_DEADLINE_MS = 5000

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
        // The tenant's fair share of the workers when their slots are all taken (common/tenant-priority.ts).
        priority: tenantPriority(row.tenantId),
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

/** The starts of one process on their way after their requests' answers, by workflow id. */
function startsAfterAnswers() {
  const onTheirWay = new Map<string, Promise<void>>()
  return {
    /** Whether another may be added (MAX_STARTS_AFTER_ANSWERS). */
    hasRoom: () => onTheirWay.size < MAX_STARTS_AFTER_ANSWERS,
    track(workflowId: string, start: Promise<void>): void {
      const tracked = start.finally(() => {
        if (onTheirWay.get(workflowId) === tracked) onTheirWay.delete(workflowId)
      })
      onTheirWay.set(workflowId, tracked)
    },
    started: async (workflowId: string) => {
      await onTheirWay.get(workflowId)
    },
    all: async () => {
      await Promise.all(onTheirWay.values())
    },
  }
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
  const afterAnswers = startsAfterAnswers()
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
      : await insertRow(uow, { id: newId('outbox'), ...row })
    // A start with nothing to run for a while (a booking's, until 10 minutes before its first reminder) is made after
    // the answer: waiting for Temporal's was a third of a booking's server time (docs/benchmarks.md, issue 48).
    const afterAnswer =
      request.afterAnswer === true &&
      request.startAt != null &&
      request.startAt - Date.now() > ANSWER_BEFORE_START_AFTER_MS
    uow.afterCommit(async () => {
      // Best effort; a failure here is not an error for the client, the sweep will finish it.
      // Started from the row as this request wrote it, not read back: the request knows it, and reading it again
      // cost every booking a round trip to the database before its answer (issue 22). Should the sweep have started
      // it meanwhile, starting again is harmless (the running workflow is reused).
      const dispatch = withTimeout(dispatchRows([{ id, ...row }], markSoon), dispatchTimeoutMs).then(
        () => undefined,
        (error: unknown) =>
          logger.warn({ outboxId: id, workflowId: request.workflowId, err: error }, 'workflow start deferred')
      )
      if (afterAnswer && afterAnswers.hasRoom()) afterAnswers.track(request.workflowId, dispatch)
      else await dispatch
    })
  }

  async function dispatchPending(ids?: string[], stopping?: AbortSignal): Promise<number> {
    const rows = await db.workflowOutbox.findMany({
      where: { state: 'PENDING', ...(ids ? { id: { in: ids } } : {}) },
      orderBy: { createdAt: 'asc' },
      take: 100,
    })
    return dispatchRows(rows, (id) => markDispatched([id]), stopping)
  }

  /**
   * Starts the rows in turn, recording each outcome; stops at the first failure, or once `stopping` is aborted (a
   * sweep of 100 starts of up to 5 s each held a rolling restart's stop past its deadline). Returns how many were
   * started.
   */
  async function dispatchRows(
    rows: PendingStart[],
    mark: (id: string) => unknown,
    stopping?: AbortSignal
  ): Promise<number> {
    let started = 0
    for (const row of rows) {
      if (stopping?.aborted) break
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
    return startBackgroundLoop({
      run: async (_sweep, stopping) => {
        await dispatchPending(undefined, stopping)
      },
      intervalMs,
      runAtStart: false,
      onError: (error) => logger.error({ err: error }, 'outbox sweep failed'),
    })
  }

  async function settle(): Promise<void> {
    await afterAnswers.all()
    await flushMarks()
  }

  return { enqueue, dispatchPending, startSweeper, settle, started: afterAnswers.started }
}
