/**
 * @module API keys: each limited to resource × method permissions, its secret shown once on creation (the API keeps
 * only a hash), revocable. The grid offers only what the signed-in user's role holds, since a key may be granted no
 * more than its creator has (the API refuses the rest).
 */
import { scopeAllows, useApiKeys, useTeamActions } from '@therapy-care/react'
import type { Schema } from '@therapy-care/sdk'
import { useState, type FormEvent } from 'react'
import {
  KEY_METHODS as METHODS,
  KEY_RESOURCES as RESOURCES,
  type KeyMethod as Method,
  type KeyResource as Resource,
} from '../parts/catalogue.ts'
import { when } from '../parts/format.ts'
import { fieldErrors, ProblemMessage } from '../parts/problem.tsx'
import { TextField } from '../parts/text-field.tsx'
import { useSession } from '../parts/session.tsx'

type Permission = Schema<'ApiKeyPermission'>

/** A grid cell's key. */
const cell = (resource: Resource, method: Method) => `${resource} ${method}`

/** The resource × method grid of checkboxes, a row per resource of which the role holds something, and its error. */
function PermissionGrid(p: {
  allowed: (r: Resource, m: Method) => boolean
  granted: ReadonlySet<string>
  onToggle: (key: string, on: boolean) => void
  error: string
}) {
  const rows = RESOURCES.filter((r) => METHODS.some((m) => p.allowed(r, m)))
  return (
    <fieldset aria-describedby={p.error ? 'key-permissions-error' : undefined}>
      <legend>Permissions: what the key may do on each resource</legend>
      <div className="table-wrap">
        <table>
          <thead>
            <tr>
              <th scope="col">Resource</th>
              {METHODS.map((m) => (
                <th key={m} scope="col">
                  {m}
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {rows.map((r) => (
              <tr key={r}>
                <th scope="row">{r}</th>
                {METHODS.map((m) => (
                  <td key={m}>
                    {p.allowed(r, m) && (
                      <>
                        <input
                          id={`key-${r}-${m}`}
                          type="checkbox"
                          checked={p.granted.has(cell(r, m))}
                          onChange={(e) => p.onToggle(cell(r, m), e.target.checked)}
                        />
                        <label htmlFor={`key-${r}-${m}`} className="visually-hidden">
                          {m} on {r}
                        </label>
                      </>
                    )}
                  </td>
                ))}
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      {p.error && (
        <p id="key-permissions-error" className="field-error">
          {p.error}
        </p>
      )}
    </fieldset>
  )
}

function NewKeyForm({ onSecret }: { onSecret: (secret: string) => void }) {
  const { createApiKey } = useTeamActions()
  const { scopes } = useSession().caller
  const [name, setName] = useState('')
  const [expiresAt, setExpiresAt] = useState('')
  const [granted, setGranted] = useState<ReadonlySet<string>>(new Set())
  const errors = fieldErrors(createApiKey.error)
  // Reading needs `x.read` (or `x`), any other method `x`: what the role holds is what a key can be given.
  const allowed = (r: Resource, m: Method) => scopeAllows(scopes, m === 'GET' ? `${r}.read` : r)
  const toggle = (key: string, on: boolean) =>
    setGranted((current) => {
      const next = new Set(current)
      if (on) next.add(key)
      else next.delete(key)
      return next
    })
  const submit = (event: FormEvent) => {
    event.preventDefault()
    const permissions = RESOURCES.map((resource) => ({
      resource,
      methods: METHODS.filter((m) => granted.has(cell(resource, m))),
    })).filter((p) => p.methods.length > 0)
    // datetime-local is the reader's local time without an offset; the API wants an instant with one.
    const expiry = expiresAt ? { expiresAt: new Date(expiresAt).toISOString() } : {}
    createApiKey.mutate(
      { name: name.trim(), permissions, ...expiry },
      {
        onSuccess: (key) => {
          onSecret(key.secret)
          setName('')
          setGranted(new Set())
        },
      }
    )
  }
  const permissionsError = Object.entries(errors)
    .filter(([path]) => path.startsWith('permissions'))
    .map(([, message]) => message)
    .join(' ')
  return (
    <form onSubmit={submit} aria-labelledby="new-key-heading" noValidate>
      <h3 id="new-key-heading">New API key</h3>
      <ProblemMessage error={createApiKey.error} />
      <TextField id="key-name" label="Name" value={name} onChange={setName} error={errors.name} />
      <TextField
        id="key-expires"
        type="datetime-local"
        label="Expires (optional; without it, the longest the platform allows)"
        value={expiresAt}
        onChange={setExpiresAt}
        error={errors.expiresAt}
      />
      <PermissionGrid allowed={allowed} granted={granted} onToggle={toggle} error={permissionsError} />
      <button type="submit" disabled={createApiKey.isPending}>
        {createApiKey.isPending ? 'Creating…' : 'Create key'}
      </button>
    </form>
  )
}

const permissionWords = (permissions: readonly Permission[]) =>
  permissions.map((p) => `${p.resource}: ${p.methods.join(', ')}`).join('; ')

export function ApiKeys() {
  const apiKeys = useApiKeys()
  const { revokeApiKey } = useTeamActions()
  const [secret, setSecret] = useState<string>()
  const revoke = (key: { id: string; name: string }) => {
    if (confirm(`Revoke the key “${key.name}”? Every system using it stops working at once.`))
      revokeApiKey.mutate(key.id)
  }
  return (
    <section aria-labelledby="keys-heading">
      <h2 id="keys-heading">API keys</h2>
      {secret && (
        <div role="status" className="secret">
          <p>
            <strong>New key:</strong> <code>{secret}</code>
          </p>
          <p>Store it in the system that will use it now: it is not shown again.</p>
          <button type="button" onClick={() => setSecret(undefined)}>
            I have stored it
          </button>
        </div>
      )}
      <ProblemMessage error={revokeApiKey.error} />
      {apiKeys.isPending && <p role="status">Loading API keys…</p>}
      {apiKeys.isError && <ProblemMessage error={apiKeys.error} />}
      {apiKeys.data?.data.length === 0 && (
        <p className="empty">No API key yet. Create one below for a system that calls the platform on its own.</p>
      )}
      {apiKeys.data && apiKeys.data.data.length > 0 && (
        <div className="table-wrap">
          <table>
            <caption className="visually-hidden">API keys</caption>
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Starts with</th>
                <th scope="col">Permissions</th>
                <th scope="col">Created</th>
                <th scope="col">Expires</th>
                <th scope="col">Actions</th>
              </tr>
            </thead>
            <tbody>
              {apiKeys.data.data.map((k) => (
                <tr key={k.id}>
                  <td>{k.name}</td>
                  <td>
                    <code>{k.prefix}</code>
                  </td>
                  <td>{permissionWords(k.permissions)}</td>
                  <td>{when(k.createdAt)}</td>
                  <td>{k.expiresAt ? when(k.expiresAt) : 'Never'}</td>
                  <td>
                    {k.revokedAt ? (
                      <span className="status status-revoked">Revoked {when(k.revokedAt)}</span>
                    ) : (
                      <button type="button" disabled={revokeApiKey.isPending} onClick={() => revoke(k)}>
                        Revoke<span className="visually-hidden"> {k.name}</span>
                      </button>
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <NewKeyForm onSecret={setSecret} />
    </section>
  )
}
