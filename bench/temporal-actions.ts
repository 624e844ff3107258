/**
 * @module Counts the Temporal work a benchmark caused, two ways:
 * - from workflow histories: the events that are billed actions (Temporal Cloud's list: workflow starts, activities
 *   scheduled, timers started, signals, and local activities, which a workflow records as markers), between two
 *   instants, by workflow type. Heartbeats are actions too but leave nothing in a history;
 * - from the dev server's own `action` counter (its Prometheus endpoint, which `temporal server start-dev` serves on a
 *   free port), by action type, heartbeats included. Namespace-wide and reported a few seconds late, so it is the
 *   check on the first figure, not a replacement for it.
 */
import { readdirSync, readFileSync, readlinkSync } from 'node:fs'
import type { Client } from '@temporalio/client'
import proto from '@temporalio/proto'

const EventType = proto.temporal.api.enums.v1.EventType

/** A history event's time in ms since the epoch (protobuf seconds arrive as a number or a Long). */
function msOf(time: { seconds?: number | { toNumber(): number } | null; nanos?: number | null } | null | undefined) {
  if (!time) return NaN
  const seconds = time.seconds ?? 0
  return (typeof seconds === 'number' ? seconds : seconds.toNumber()) * 1000 + Math.floor((time.nanos ?? 0) / 1e6)
}

/** Billed actions found in histories. */
export interface HistoryActions {
  starts: number
  activities: number
  timers: number
  signals: number
  /** Local activities (one marker each; patch markers are not counted). */
  markers: number
  total: number
  /** Workflow runs that had at least one event in the interval. */
  runs: number
}

export const emptyActions = (): HistoryActions => ({
  starts: 0,
  activities: 0,
  timers: 0,
  signals: 0,
  markers: 0,
  total: 0,
  runs: 0,
})

const KIND_OF_EVENT = new Map<number, keyof Omit<HistoryActions, 'total' | 'runs'>>([
  [EventType.EVENT_TYPE_WORKFLOW_EXECUTION_STARTED, 'starts'],
  [EventType.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED, 'activities'],
  [EventType.EVENT_TYPE_TIMER_STARTED, 'timers'],
  [EventType.EVENT_TYPE_WORKFLOW_EXECUTION_SIGNALED, 'signals'],
  [EventType.EVENT_TYPE_MARKER_RECORDED, 'markers'],
])

/** The marker name the SDK records for a local activity (sdk-core's LOCAL_ACTIVITY_MARKER_NAME). */
const LOCAL_ACTIVITY_MARKER = 'core_local_activity'

/** Sums `b` into `a`. */
export function addActions(a: HistoryActions, b: HistoryActions): HistoryActions {
  return {
    starts: a.starts + b.starts,
    activities: a.activities + b.activities,
    timers: a.timers + b.timers,
    signals: a.signals + b.signals,
    markers: a.markers + b.markers,
    total: a.total + b.total,
    runs: a.runs + b.runs,
  }
}

/**
 * Billed actions recorded between `from` and `to` (ms since the epoch) in the histories of the workflows a visibility
 * query finds (every run, closed ones included), by workflow type.
 */
export async function historyActions(
  client: Client,
  options: { query: string; from: number; to: number }
): Promise<Map<string, HistoryActions>> {
  const byType = new Map<string, HistoryActions>()
  for await (const info of client.workflow.list({ query: options.query })) {
    const history = await client.workflow.getHandle(info.workflowId, info.runId).fetchHistory()
    const counted = emptyActions()
    let seen = false
    for (const event of history.events ?? []) {
      const at = msOf(event.eventTime)
      if (at < options.from || at > options.to) continue
      seen = true
      const kind = KIND_OF_EVENT.get(event.eventType ?? 0)
      if (kind === undefined) continue
      // A `patched()` call records a marker too (`core_patch`): a version mark, not a local activity, and not billed.
      if (kind === 'markers' && event.markerRecordedEventAttributes?.markerName !== LOCAL_ACTIVITY_MARKER) continue
      counted[kind]++
      counted.total++
    }
    if (!seen) continue
    counted.runs = 1
    byType.set(info.type, addActions(byType.get(info.type) ?? emptyActions(), counted))
  }
  return byType
}

/** Every listening TCP port of a process, from /proc (Linux). */
function listeningPorts(pid: number): number[] {
  const inodes = new Set<string>()
  for (const fd of readdirSync(`/proc/${pid}/fd`)) {
    try {
      const match = /^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/${pid}/fd/${fd}`))
      if (match) inodes.add(match[1]!)
    } catch {
      // closed meanwhile
    }
  }
  const ports: number[] = []
  for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
    for (const line of readFileSync(table, 'utf8').split('\n').slice(1)) {
      const fields = line.trim().split(/\s+/)
      // Field 3 is the state (0A: LISTEN), field 9 the socket's inode.
      if (fields[3] === '0A' && inodes.has(fields[9] ?? '')) ports.push(parseInt(fields[1]!.split(':')[1]!, 16))
    }
  }
  return ports
}

/** The dev server's metrics endpoint: the one listening port of its process that answers `/metrics`. */
export async function findMetricsUrl(temporalPid: number): Promise<string | undefined> {
  for (const port of listeningPorts(temporalPid)) {
    const url = `http://127.0.0.1:${port}/metrics`
    const text = await fetch(url, { signal: AbortSignal.timeout(2000) })
      .then((response) => (response.ok ? response.text() : ''))
      .catch(() => '')
    if (text.includes('# HELP')) return url
  }
  return undefined
}

/** The server's `action` counter for `namespace`, by action type. */
export async function serverActions(metricsUrl: string, namespace: string): Promise<Record<string, number>> {
  const text = await (await fetch(metricsUrl, { signal: AbortSignal.timeout(5000) })).text()
  const counts: Record<string, number> = {}
  for (const line of text.split('\n')) {
    if (!line.startsWith('action{')) continue
    const labels = line.slice(line.indexOf('{') + 1, line.lastIndexOf('}'))
    if (!labels.includes(`namespace="${namespace}"`)) continue
    const type = /action_type="([^"]+)"/.exec(labels)?.[1] ?? 'unknown'
    counts[type] = (counts[type] ?? 0) + Number(line.slice(line.lastIndexOf(' ') + 1))
  }
  return counts
}

/** What each action type counted between two readings of {@link serverActions} (types that did not move left out). */
export function actionsBetween(before: Record<string, number>, after: Record<string, number>): Record<string, number> {
  const moved: Record<string, number> = {}
  for (const [type, value] of Object.entries(after)) {
    const delta = value - (before[type] ?? 0)
    if (delta !== 0) moved[type] = delta
  }
  return moved
}
