/**
 * @module Webhooks: the centre's endpoints (create, send a test event, rotate the secret, disable or enable) and the
 * deliveries of the one selected. A new secret is shown once, as the API gives it once.
 */
import { useWebhookEndpointActions, useWebhookEndpoints } from '@therapy-care/react'
import { useState, type FormEvent } from 'react'
import { errorAt, fieldErrors, ProblemMessage } from '../parts/problem.tsx'
import { TextField } from '../parts/text-field.tsx'
import { useCan } from '../parts/session.tsx'
import { when } from '../parts/format.ts'
import { WebhookDeliveries } from './webhook-deliveries.tsx'

function NewEndpointForm({ onSecret }: { onSecret: (secret: string) => void }) {
  const { create } = useWebhookEndpointActions()
  const [url, setUrl] = useState('')
  const [events, setEvents] = useState('*')
  const [description, setDescription] = useState('')
  const errors = fieldErrors(create.error)
  const submit = (event: FormEvent) => {
    event.preventDefault()
    const types = events
      .split(/[\s,]+/)
      .map((t) => t.trim())
      .filter(Boolean)
    create.mutate(
      { url: url.trim(), events: types as never, ...(description.trim() ? { description: description.trim() } : {}) },
      {
        onSuccess: (endpoint) => {
          onSecret(endpoint.secret)
          setUrl('')
          setDescription('')
        },
      }
    )
  }
  return (
    <form onSubmit={submit} aria-labelledby="new-endpoint-heading" noValidate>
      <h2 id="new-endpoint-heading">New endpoint</h2>
      <ProblemMessage error={create.error} />
      <TextField id="endpoint-url" type="url" label="URL" value={url} onChange={setUrl} error={errors.url} />
      <TextField
        id="endpoint-events"
        label="Event types"
        value={events}
        onChange={setEvents}
        error={errorAt(errors, 'events')}
        hint={
          <>
            Separated by commas, e.g. <code>booking.created, booking.cancelled</code>; <code>*</code> for every event.
          </>
        }
      />
      <TextField
        id="endpoint-description"
        label="Description (optional)"
        value={description}
        onChange={setDescription}
        error={errors.description}
      />
      <button type="submit" disabled={create.isPending}>
        {create.isPending ? 'Creating…' : 'Create endpoint'}
      </button>
    </form>
  )
}

const DISABLED_BECAUSE: Record<string, string | undefined> = {
  MANUAL: 'by a person',
  GONE: 'the receiver answered 410 Gone',
  FAILING: 'failing for 5 days',
}

type Endpoint = NonNullable<ReturnType<typeof useWebhookEndpoints>['data']>['data'][number]

function statusOf(e: Endpoint): string {
  if (!e.enabled) return `Disabled (${DISABLED_BECAUSE[e.disabledReason ?? ''] ?? 'disabled'})`
  return e.failingSince ? `Failing since ${when(e.failingSince)}` : 'Receiving events'
}

/** One endpoint: what it receives, its state, and what the role may do with it (its errors shown beside it). */
function EndpointCard(props: {
  endpoint: Endpoint
  selected: boolean
  onSelect: () => void
  onSecret: (secret: string) => void
}) {
  const { endpoint: e, onSecret } = props
  const actions = useWebhookEndpointActions()
  const canChange = useCan('webhooks')
  const busy = actions.sendTest.isPending || actions.rotateSecret.isPending || actions.setEnabled.isPending
  return (
    <li className="card">
      <h3>{e.url}</h3>
      {e.description && <p>{e.description}</p>}
      <p>
        {statusOf(e)} · {e.events.join(', ')}
      </p>
      {[actions.sendTest.error, actions.rotateSecret.error, actions.setEnabled.error].map(
        (error, i) => error && <ProblemMessage key={i} error={error} />
      )}
      {actions.sendTest.isSuccess && <p role="status">Test event sent: it appears in the endpoint’s deliveries.</p>}
      <div className="actions">
        <button type="button" aria-pressed={props.selected} onClick={props.onSelect}>
          Deliveries<span className="visually-hidden"> to {e.url}</span>
        </button>
        {canChange && (
          <>
            <button type="button" disabled={busy || !e.enabled} onClick={() => actions.sendTest.mutate(e.id)}>
              Send test event<span className="visually-hidden"> to {e.url}</span>
            </button>
            <button
              type="button"
              disabled={busy}
              onClick={() => actions.rotateSecret.mutate(e.id, { onSuccess: (r) => onSecret(r.secret) })}
            >
              Rotate secret<span className="visually-hidden"> of {e.url}</span>
            </button>
            <button
              type="button"
              disabled={busy}
              onClick={() => actions.setEnabled.mutate({ id: e.id, enabled: !e.enabled })}
            >
              {e.enabled ? 'Disable' : 'Enable'}
              <span className="visually-hidden"> {e.url}</span>
            </button>
          </>
        )}
      </div>
    </li>
  )
}

/** A secret the API shows once: kept on screen until the user says it is stored. */
function OnceShownSecret({ secret, onStored }: { secret: string; onStored: () => void }) {
  return (
    <div role="status" className="secret">
      <p>
        <strong>Signing secret:</strong> <code>{secret}</code>
      </p>
      <p>Store it in the receiving system now: it is not shown again.</p>
      <button type="button" onClick={onStored}>
        I have stored it
      </button>
    </div>
  )
}

export function WebhooksPage() {
  const endpoints = useWebhookEndpoints()
  const canChange = useCan('webhooks')
  const [selected, setSelected] = useState<string>()
  const [secret, setSecret] = useState<string>()
  const chosen = endpoints.data?.data.find((e) => e.id === selected)
  return (
    <>
      <p>Endpoints receive the centre’s events, signed, retried for 24 hours when the receiver fails.</p>
      {secret && <OnceShownSecret secret={secret} onStored={() => setSecret(undefined)} />}
      <section aria-labelledby="endpoints-heading">
        <h2 id="endpoints-heading">Endpoints</h2>
        {endpoints.isPending && <p>Loading endpoints…</p>}
        {endpoints.isError && <ProblemMessage error={endpoints.error} />}
        {endpoints.data?.data.length === 0 && (
          <p className="empty">
            No endpoint yet.{' '}
            {canChange
              ? 'Create one below with the URL of the system that should receive events.'
              : 'An owner or admin can add one.'}
          </p>
        )}
        {endpoints.data && endpoints.data.data.length > 0 && (
          <ul className="cards">
            {endpoints.data.data.map((e) => (
              <EndpointCard
                key={e.id}
                endpoint={e}
                selected={selected === e.id}
                onSelect={() => setSelected(e.id)}
                onSecret={setSecret}
              />
            ))}
          </ul>
        )}
      </section>
      {chosen && <WebhookDeliveries endpointId={chosen.id} url={chosen.url} />}
      {canChange && <NewEndpointForm onSecret={setSecret} />}
    </>
  )
}
