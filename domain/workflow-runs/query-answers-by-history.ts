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
  /**
   * The answer `query` gave at this version, kept; or asked with `ask` when it has not been. Callers wanting the same
   * version at the same moment share one ask and its outcome: a view polled by 16 clients, whose workflow's history had
   * just grown, sent 16 queries that waited in turn for one worker (under a loaded machine, 10 s and a 503 each). An
   * ask that fails is not kept; the next caller asks again.
   */
  answer<T>(workflowId: string, query: string, version: HistoryVersion, ask: () => Promise<T>): Promise<T>
}

/** Workflow views kept by default: a few hundred bytes each. */
const DEFAULT_MAX_ENTRIES = 10_000

export function createQueryAnswersByHistory(maxEntries = DEFAULT_MAX_ENTRIES): QueryAnswersByHistory {
  const entries = new Map<string, { version: string; answer: unknown }>()
  /** Asks on their way, by key and version; each ends within its caller's deadline, so this stays small. */
  const asking = new Map<string, Promise<unknown>>()
  const keyOf = (workflowId: string, query: string) => `${workflowId}\u0000${query}`
  const versionOf = ({ runId, historyLength }: HistoryVersion) => `${runId}:${historyLength}`
  const keep = (key: string, version: string, answer: unknown) => {
    entries.delete(key)
    entries.set(key, { version, answer })
    if (entries.size > maxEntries) entries.delete(entries.keys().next().value!)
  }
  return {
    async answer<T>(workflowId: string, query: string, version: HistoryVersion, ask: () => Promise<T>) {
      const key = keyOf(workflowId, query)
      const at = versionOf(version)
      const entry = entries.get(key)
      if (entry?.version === at) {
        // Re-inserted: a Map iterates in insertion order, so its first entry is the least recently used.
        keep(key, at, entry.answer)
        return entry.answer as T
      }
      const flight = `${key}\u0000${at}`
      const onItsWay = asking.get(flight)
      if (onItsWay) return onItsWay as Promise<T>
      const asked = ask()
        .then((answer) => {
          keep(key, at, answer)
          return answer
        })
        .finally(() => asking.delete(flight))
      asking.set(flight, asked)
      return asked
    },
  }
}
