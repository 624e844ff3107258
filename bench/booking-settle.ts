/**
 * @module How long the worker took to settle each booking workflow started in an interval: from its start (the API's
 * `WorkflowExecutionStarted`) to the first moment it waits on its own timer (`TimerStarted`, recorded when the
 * workflow task that armed it completed), or to its end. That is the first tasks and activities of a booking; a worker
 * that falls behind shows here even though the API's answers do not wait for it. A workflow started with a start delay
 * (BOOKING_WORKFLOW_START=deferred, a booking days ahead) is settled at its start: it is durable and waits on that
 * delay, and its first task runs shortly before its first reminder, outside the run.
 */
import type { Client } from '@temporalio/client'
import proto from '@temporalio/proto'

const EventType = proto.temporal.api.enums.v1.EventType

const msOf = (time: { seconds?: number | { toNumber(): number } | null; nanos?: number | null } | null | undefined) => {
  if (!time) return NaN
  const seconds = time.seconds ?? 0
  return (typeof seconds === 'number' ? seconds : seconds.toNumber()) * 1000 + Math.floor((time.nanos ?? 0) / 1e6)
}

export interface SettleFigures {
  /** Booking workflows started in the interval. */
  started: number
  /** Of those, settled (waiting on a timer, or ended) by `by`. */
  settled: number
  /** Of those, started with a start delay (settled at their start). */
  deferred: number
  /** ms from start to settled, over the settled ones. */
  p50: number
  p95: number
  max: number
}

const percentile = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN

/**
 * Settling of the `workflowType` workflows on `taskQueue` started between `from` and `to` (ms since the epoch).
 * @param by - a workflow settled later than this counts as not settled
 */
export async function settleFigures(
  client: Client,
  options: { taskQueue: string; workflowType: string; from: number; to: number; by: number }
): Promise<SettleFigures> {
  const iso = (ms: number) => new Date(ms).toISOString()
  const query =
    `TaskQueue = "${options.taskQueue}" AND WorkflowType = "${options.workflowType}" AND ` +
    `StartTime >= "${iso(options.from)}" AND StartTime <= "${iso(options.to)}"`
  const lags: number[] = []
  let started = 0
  let deferred = 0
  for await (const info of client.workflow.list({ query })) {
    started++
    const history = await client.workflow.getHandle(info.workflowId, info.runId).fetchHistory()
    let start = NaN
    for (const event of history.events ?? []) {
      const type = event.eventType ?? 0
      if (type === EventType.EVENT_TYPE_WORKFLOW_EXECUTION_STARTED) start = msOf(event.eventTime)
      const backoff = event.workflowExecutionStartedEventAttributes?.firstWorkflowTaskBackoff
      const delayed = Boolean(backoff) && msOf(backoff) > 0
      if (delayed) deferred++
      const settledAt =
        delayed ||
        type === EventType.EVENT_TYPE_TIMER_STARTED ||
        type === EventType.EVENT_TYPE_WORKFLOW_EXECUTION_COMPLETED ||
        type === EventType.EVENT_TYPE_WORKFLOW_EXECUTION_FAILED
      if (!settledAt) continue
      const at = msOf(event.eventTime)
      if (at <= options.by) lags.push(at - start)
      break
    }
  }
  lags.sort((a, b) => a - b)
  return {
    started,
    settled: lags.length,
    deferred,
    p50: percentile(lags, 50),
    p95: percentile(lags, 95),
    max: lags.at(-1) ?? NaN,
  }
}
