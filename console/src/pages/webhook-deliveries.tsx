/**
 * @module One endpoint's deliveries: each event, its status and every attempt with the receiver's answer, and a
 * redelivery of any of them. While a delivery is still being retried the list refreshes itself, so a redelivery's
 * progress shows without a reload.
 */
import { useWebhookDeliveries, useWebhookEndpointActions } from '@therapy-care/react'
import { useCan } from '../parts/session.tsx'
import { ProblemMessage } from '../parts/problem.tsx'
import { when } from '../parts/format.ts'

const STATUS_WORDS = { PENDING: 'Being delivered', SUCCEEDED: 'Delivered', FAILED: 'Failed' } as const

export function WebhookDeliveries({ endpointId, url }: { endpointId: string; url: string }) {
  // Every 2 s while a delivery is retried; every 10 s otherwise, so a new event's delivery shows up unasked.
  const deliveries = useWebhookDeliveries(endpointId, 2000, 10_000)
  const { redeliver } = useWebhookEndpointActions()
  const canChange = useCan('webhooks')
  return (
    <section aria-labelledby="deliveries-heading">
      <h2 id="deliveries-heading">Deliveries to {url}</h2>
      <ProblemMessage error={redeliver.error} />
      {deliveries.isPending && <p>Loading deliveries…</p>}
      {deliveries.isError && <ProblemMessage error={deliveries.error} />}
      {deliveries.data?.data.length === 0 && (
        <p className="empty">Nothing has been sent to this endpoint yet. Send a test event to see a delivery here.</p>
      )}
      {deliveries.data && deliveries.data.data.length > 0 && (
        <div className="table-wrap">
          <table>
            <caption className="visually-hidden">Deliveries, newest first</caption>
            <thead>
              <tr>
                <th scope="col">Event</th>
                <th scope="col">Created</th>
                <th scope="col">Status</th>
                <th scope="col">Receiver’s answers</th>
                {canChange && <th scope="col">Actions</th>}
              </tr>
            </thead>
            <tbody aria-live="polite">
              {deliveries.data.data.map((d) => (
                <tr key={d.id}>
                  <td>
                    {d.eventType}
                    {d.kind === 'REDELIVERY' && <span className="tag">redelivery</span>}
                  </td>
                  <td>{when(d.createdAt)}</td>
                  <td>
                    <span className={`status status-${d.status.toLowerCase()}`}>{STATUS_WORDS[d.status]}</span>
                    {d.nextAttemptAt && <span className="quiet"> next try {when(d.nextAttemptAt)}</span>}
                  </td>
                  <td>
                    <details>
                      <summary>
                        {d.attemptCount} {d.attemptCount === 1 ? 'attempt' : 'attempts'}
                        {d.lastStatusCode !== null && `, last answer ${d.lastStatusCode}`}
                      </summary>
                      <ol>
                        {d.attempts.map((a) => (
                          <li key={a.number}>
                            {when(a.attemptedAt)}: {a.statusCode === null ? 'no answer' : `HTTP ${a.statusCode}`}
                            {a.error && ` (${a.error})`}, {a.latencyMs} ms
                          </li>
                        ))}
                      </ol>
                    </details>
                  </td>
                  {canChange && (
                    <td>
                      <button
                        type="button"
                        disabled={redeliver.isPending}
                        onClick={() => redeliver.mutate({ id: endpointId, eventId: d.eventId })}
                      >
                        Redeliver
                        <span className="visually-hidden">
                          {' '}
                          {d.eventType} of {when(d.createdAt)}
                        </span>
                      </button>
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
