/**
 * @module One agent workflow's latest runs: status, what started each, its outcome, and a link to the run's Temporal
 * workflow when the deployment names its Temporal UI. Unfinished runs are followed by refetching (every 3 s).
 */
import { isRunUnfinished, useAgentRuns, type AgentRunSummary } from '@therapy-care/react'
import { when } from '../parts/format.ts'
import { ProblemMessage } from '../parts/problem.tsx'

// Read once: the page's meta tag is written by the server (TEMPORAL_UI_URL, a namespace page) and never changes.
const temporalUi = document.querySelector('meta[name="temporal-ui"]')?.getAttribute('content') || undefined

const STATUS_WORDS: Record<AgentRunSummary['status'], string> = {
  PENDING: 'Waiting to start',
  RUNNING: 'Running',
  SUCCEEDED: 'Succeeded',
  PARTIAL: 'Partly succeeded',
  FAILED: 'Failed',
}

const startedBy = (run: AgentRunSummary) =>
  run.trigger.type === 'SCHEDULE' ? 'Schedule' : `Event ${run.trigger.eventType ?? run.trigger.eventId ?? ''}`

export function AgentRuns({ workflowId, name }: { workflowId: string; name: string }) {
  // Every 3 s while a run is unfinished; every 10 s otherwise, so a run its trigger starts shows up unasked.
  const runs = useAgentRuns(workflowId, 3000, 10_000)
  const unfinished = runs.data?.data.filter(isRunUnfinished).length ?? 0
  return (
    <section aria-labelledby="runs-heading">
      <h2 id="runs-heading">Runs of {name}</h2>
      {runs.isPending && <p role="status">Loading runs…</p>}
      {runs.isError && <ProblemMessage error={runs.error} />}
      <p role="status" className="quiet">
        {unfinished > 0 &&
          `${unfinished} ${unfinished === 1 ? 'run is' : 'runs are'} still going: this list refreshes itself.`}
      </p>
      {runs.data?.data.length === 0 && (
        <p className="empty">
          No run yet. A run starts on the workflow’s next trigger: one of its events, or its schedule’s next time.
        </p>
      )}
      {runs.data && runs.data.data.length > 0 && (
        <div className="table-wrap">
          <table>
            <caption className="visually-hidden">Latest runs of {name}, newest first</caption>
            <thead>
              <tr>
                <th scope="col">Status</th>
                <th scope="col">Started by</th>
                <th scope="col">Created</th>
                <th scope="col">Finished</th>
                <th scope="col">Outcome</th>
                {temporalUi && <th scope="col">Temporal</th>}
              </tr>
            </thead>
            <tbody>
              {runs.data.data.map((run) => (
                <tr key={run.id}>
                  <td>
                    <span className={`status status-${run.status.toLowerCase()}`}>{STATUS_WORDS[run.status]}</span>
                  </td>
                  <td>{startedBy(run)}</td>
                  <td>{when(run.createdAt)}</td>
                  <td>{when(run.completedAt)}</td>
                  <td>
                    {run.summary}
                    {run.error && <span className="field-error"> {run.error}</span>}
                  </td>
                  {temporalUi && (
                    <td>
                      <a
                        href={`${temporalUi}/workflows/${encodeURIComponent(run.workflowId)}`}
                        target="_blank"
                        rel="noreferrer"
                      >
                        Open in Temporal UI
                        <span className="visually-hidden">: run of {when(run.createdAt)} (opens in a new tab)</span>
                      </a>
                    </td>
                  )}
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  )
}
