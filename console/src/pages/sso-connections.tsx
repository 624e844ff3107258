/**
 * @module The identity providers the centre's people sign in with (SSO connections): listed for those who read users,
 * connected by those who manage them. The role mapping is typed as lines, `group = Role`, the way an identity
 * provider's admin reads their groups.
 */
import { useSsoConnections, useTeamActions, type PlatformRole } from '@therapy-care/react'
import { useState, type FormEvent } from 'react'
import { when } from '../parts/format.ts'
import { errorAt, fieldErrors, ProblemMessage } from '../parts/problem.tsx'
import { parseRoleMapping, ROLES, roleWords } from '../parts/roles.ts'
import { useCan } from '../parts/session.tsx'
import { TextField } from '../parts/text-field.tsx'

function ConnectForm() {
  const { connectSso } = useTeamActions()
  const [issuer, setIssuer] = useState('')
  const [audience, setAudience] = useState('')
  const [roleClaim, setRoleClaim] = useState('roles')
  const [lines, setLines] = useState('')
  const [defaultRole, setDefaultRole] = useState<PlatformRole | ''>('')
  const { mapping, unread } = parseRoleMapping(lines)
  const errors = fieldErrors(connectSso.error)
  const submit = (event: FormEvent) => {
    event.preventDefault()
    if (unread.length > 0) return
    const input = {
      issuer: issuer.trim(),
      audience: audience.trim(),
      roleClaim: roleClaim.trim(),
      roleMapping: mapping,
    }
    connectSso.mutate(defaultRole ? { ...input, defaultRole } : input, {
      onSuccess: () => {
        setIssuer('')
        setAudience('')
        setLines('')
      },
    })
  }
  const mappingError = unread.length > 0 ? `Not read: ${unread.join('; ')}` : errorAt(errors, 'roleMapping')
  return (
    <form onSubmit={submit} aria-labelledby="connect-sso-heading" noValidate>
      <h3 id="connect-sso-heading">Connect a sign-in provider</h3>
      <ProblemMessage error={connectSso.error} />
      <TextField id="sso-issuer" type="url" label="Issuer" value={issuer} onChange={setIssuer} error={errors.issuer} />
      <TextField
        id="sso-audience"
        label="Client ID of this platform at the provider"
        value={audience}
        onChange={setAudience}
        error={errors.audience}
      />
      <TextField
        id="sso-role-claim"
        label="Claim with the user's groups"
        value={roleClaim}
        onChange={setRoleClaim}
        error={errors.roleClaim}
      />
      <label htmlFor="sso-mapping">Groups and the role each gives, one per line</label>
      <textarea
        id="sso-mapping"
        rows={4}
        value={lines}
        onChange={(e) => setLines(e.target.value)}
        placeholder={'therapists = Clinician\nfront-desk = Front desk'}
        aria-invalid={mappingError ? true : undefined}
        aria-describedby={mappingError ? 'sso-mapping-error' : undefined}
      />
      {mappingError && (
        <p id="sso-mapping-error" className="field-error">
          {mappingError}
        </p>
      )}
      <label htmlFor="sso-default-role">Anyone in no mapped group</label>
      <select
        id="sso-default-role"
        value={defaultRole}
        onChange={(e) => setDefaultRole(e.target.value as PlatformRole | '')}
      >
        <option value="">is refused</option>
        {ROLES.map((r) => (
          <option key={r.role} value={r.role}>
            becomes {r.words}
          </option>
        ))}
      </select>
      <button type="submit" disabled={connectSso.isPending}>
        {connectSso.isPending ? 'Connecting…' : 'Connect provider'}
      </button>
    </form>
  )
}

export function SsoConnections() {
  const connections = useSsoConnections()
  const canManage = useCan('users')
  return (
    <section aria-labelledby="sso-heading">
      <h2 id="sso-heading">Sign-in providers (SSO)</h2>
      {connections.isPending && <p role="status">Loading sign-in providers…</p>}
      {connections.isError && <ProblemMessage error={connections.error} />}
      {connections.data?.data.length === 0 && (
        <p className="empty">
          No provider connected. {canManage ? 'Connect one below.' : 'An owner or admin of the centre connects one.'}
        </p>
      )}
      {connections.data && connections.data.data.length > 0 && (
        <ul className="cards">
          {connections.data.data.map((c) => (
            <li key={c.id} className="card">
              <h3>{c.issuer}</h3>
              <p>
                Audience <code>{c.audience}</code> · roles from the <code>{c.roleClaim}</code> claim · connected{' '}
                {when(c.createdAt)}
              </p>
              <p>
                At first sign-in:{' '}
                {Object.entries(c.roleMapping)
                  .map(([group, role]) => `${group} → ${roleWords(role)}`)
                  .join(', ') || 'no group mapped'}
                ; {c.defaultRole ? `anyone else: ${roleWords(c.defaultRole)}.` : 'anyone else is refused.'}
              </p>
            </li>
          ))}
        </ul>
      )}
      {canManage && <ConnectForm />}
    </section>
  )
}
