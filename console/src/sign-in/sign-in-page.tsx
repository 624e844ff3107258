/**
 * @module The sign-in page: the centre's identity provider (its SSO connection's issuer) and the console's client id
 * there (the connection's audience). A centre hands its people a link that fills both
 * (`/console/?issuer=…&client_id=…`); `npm start` prints one for its development provider.
 */
import { useState, type FormEvent } from 'react'
import { beginSignIn, SignInError, type SignInSettings } from './oidc.ts'

export function SignInPage({ settings, error }: { settings: Partial<SignInSettings>; error?: unknown }) {
  const [issuer, setIssuer] = useState(settings.issuer ?? '')
  const [clientId, setClientId] = useState(settings.clientId ?? '')
  const [failure, setFailure] = useState<unknown>(error)
  const [busy, setBusy] = useState(false)
  const submit = (event: FormEvent) => {
    event.preventDefault()
    setBusy(true)
    setFailure(undefined)
    beginSignIn({ issuer: issuer.trim(), clientId: clientId.trim() }).catch((e: unknown) => {
      setFailure(e)
      setBusy(false)
    })
  }
  return (
    <main id="content" className="sign-in">
      <h1>Therapy Care console</h1>
      <p>Sign in with your centre’s account to manage its agents, knowledge, webhooks and team.</p>
      {failure !== undefined && (
        <div role="alert" className="problem">
          <strong>Sign-in did not complete.</strong>
          <p>{failure instanceof SignInError || failure instanceof Error ? failure.message : 'An unexpected error.'}</p>
        </div>
      )}
      <form onSubmit={submit}>
        <label htmlFor="issuer">Your centre’s sign-in provider</label>
        <input
          id="issuer"
          type="url"
          required
          value={issuer}
          onChange={(e) => setIssuer(e.target.value)}
          placeholder="https://login.your-centre.org"
          autoComplete="url"
        />
        <label htmlFor="client-id">Console client ID</label>
        <input id="client-id" required value={clientId} onChange={(e) => setClientId(e.target.value)} />
        <p className="quiet">Both come from your centre’s administrator, usually in the link that opened this page.</p>
        <button type="submit" disabled={busy}>
          {busy ? 'Opening your sign-in…' : 'Sign in'}
        </button>
      </form>
    </main>
  )
}
