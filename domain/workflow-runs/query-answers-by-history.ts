/**
 * @module Query answers kept per workflow run and history length. A workflow's state, and so every query's answer, is
 * a function of its history: while a run's history has not grown, asking it again gives the same answer. A describe
 * (answered by Temporal's history service alone) tells the run and its length; only when either changed does the
 * query go to a worker, which must wake the workflow to answer it. Views polled by dashboards and integrators
 * (`GET /v1/appointments/{id}/workflow`) thus cost one describe each while nothing happens, instead of a worker's
 * turn: measured beside 16 view loops, docs/benchmarks.md ("Bookings beside 16 workflow-view loops").
 *
 * Entries are per workflow id (a newer version replaces the older) and the least recently used go first past
 * `maxEntries`. Callers read an entry only after authorising the resource the workflow belongs to, and workflow ids
 * carry that resource's globally unique id, so an entry is never another tenant's.
 */

/** A run of a workflow as far as its history goes: the answers asked of it stay valid while this does not change. */
export interface HistoryVersion {
  runId: string
  historyLength: number
}

export interface QueryAnswersByHistory {
  /** The answer `query` gave at this version, or undefined when it has not been asked at it. */
  get<T>(workflowId: string, query: string, version: HistoryVersion): { answer: T } | undefined
  set(workflowId: string, query: string, version: HistoryVersion, answer: unknown): void
}

/** Workflow views kept by default: a few hundred bytes each. */
const DEFAULT_MAX_ENTRIES = 10_000

export function createQueryAnswersByHistory(maxEntries = DEFAULT_MAX_ENTRIES): QueryAnswersByHistory {
  const entries = new Map<string, { version: string; answer: unknown }>()
  const keyOf = (workflowId: string, query: string) => `${workflowId}\u0000${query}`
  const versionOf = ({ runId, historyLength }: HistoryVersion) => `${runId}:${historyLength}`
  return {
    get<T>(workflowId: string, query: string, version: HistoryVersion) {
      const key = keyOf(workflowId, query)
      const entry = entries.get(key)
      if (entry?.version !== versionOf(version)) return undefined
      // Re-inserted: a Map iterates in insertion order, so its first entry is the least recently used.
      entries.delete(key)
      entries.set(key, entry)
      return { answer: entry.answer as T }
    },
    set(workflowId, query, version, answer) {
      const key = keyOf(workflowId, query)
      entries.delete(key)
      entries.set(key, { version: versionOf(version), answer })
      if (entries.size > maxEntries) entries.delete(entries.keys().next().value!)
    },
  }
}
