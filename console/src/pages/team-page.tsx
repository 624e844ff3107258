/**
 * @module Team: the centre's platform users and their roles (changed or disabled by those whose role manages users),
 * its API keys, and the identity providers its users sign in with. The API decides who may change whom (only an owner
 * acts on an owner; the last owner stays); the console shows its refusals.
 */
import { useTeamActions, useTeamUsers, type PlatformRole } from '@therapy-care/react'
import { ProblemMessage } from '../parts/problem.tsx'
import { ROLES, roleWords } from '../parts/roles.ts'
import { useCan, useSession } from '../parts/session.tsx'
import { ApiKeys } from './api-keys.tsx'
import { SsoConnections } from './sso-connections.tsx'

type TeamUser = NonNullable<ReturnType<typeof useTeamUsers>['data']>['data'][number]

interface RowProps {
  user: TeamUser
  isMe: boolean
  canManage: boolean
  /** While a change is under way: the row's controls are disabled. */
  busy: true | undefined
  onRole: (role: PlatformRole) => void
  onDisabled: (disabled: boolean) => void
}

/** One user: name, e-mail, role (a select for those who manage users), status, sign-in provider, and Enable/Disable. */
function UserRow({ user: u, isMe, canManage, busy, onRole, onDisabled }: RowProps) {
  return (
    <tr>
      <td>
        {u.name ?? '—'}
        {isMe && <span className="tag">you</span>}
      </td>
      <td>{u.email}</td>
      <td>
        {/* One's own role is not changed here: a slip would lock the user out of this page. */}
        {canManage && !isMe ? (
          <>
            <label htmlFor={`role-${u.id}`} className="visually-hidden">
              Role of {u.email}
            </label>
            <select
              id={`role-${u.id}`}
              value={u.role}
              disabled={busy}
              onChange={(e) => onRole(e.target.value as PlatformRole)}
            >
              {ROLES.map((r) => (
                <option key={r.role} value={r.role}>
                  {r.words}
                </option>
              ))}
            </select>
          </>
        ) : (
          roleWords(u.role)
        )}
      </td>
      <td>
        <span className={`status status-${u.disabled ? 'disabled' : 'enabled'}`}>
          {u.disabled ? 'Disabled' : 'Active'}
        </span>
      </td>
      <td>{u.ssoIssuer ?? '—'}</td>
      {canManage && (
        <td>
          {!isMe && (
            <button type="button" disabled={busy} onClick={() => onDisabled(!u.disabled)}>
              {u.disabled ? 'Enable' : 'Disable'}
              <span className="visually-hidden"> {u.email}</span>
            </button>
          )}
        </td>
      )}
    </tr>
  )
}

function Users() {
  const users = useTeamUsers()
  const { changeRole, setDisabled } = useTeamActions()
  const canManage = useCan('users')
  const me = useSession().caller.user?.id
  const busy = changeRole.isPending || setDisabled.isPending || undefined
  return (
    <section aria-labelledby="users-heading">
      <h2 id="users-heading">Users</h2>
      <ProblemMessage error={changeRole.error ?? setDisabled.error} />
      <p role="status" className="quiet">
        {changeRole.isSuccess && `${changeRole.data.email} is now ${roleWords(changeRole.data.role)}.`}
      </p>
      {users.isPending && <p role="status">Loading users…</p>}
      {users.isError && <ProblemMessage error={users.error} />}
      {users.data?.data.length === 0 && (
        <p className="empty">No user yet: people appear here the first time they sign in through the centre’s SSO.</p>
      )}
      {users.data && users.data.data.length > 0 && (
        <div className="table-wrap">
          <table>
            <caption className="visually-hidden">Platform users</caption>
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">E-mail</th>
                <th scope="col">Role</th>
                <th scope="col">Status</th>
                <th scope="col">Signs in with</th>
                {canManage && <th scope="col">Actions</th>}
              </tr>
            </thead>
            <tbody>
              {users.data.data.map((u) => (
                <UserRow
                  key={u.id}
                  user={u}
                  isMe={u.id === me}
                  canManage={canManage}
                  busy={busy}
                  onRole={(role) => changeRole.mutate({ id: u.id, role })}
                  onDisabled={(disabled) => setDisabled.mutate({ id: u.id, disabled })}
                />
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  )
}

export function TeamPage() {
  const canManageKeys = useCan('api_keys')
  // Every role that manages API keys also reads users (domain/auth/roles.ts): `users.read` gates the whole page.
  const canRead = useCan('users.read')
  if (!canRead) {
    return (
      <p className="empty">Your role does not include team management. An owner or admin of the centre can help.</p>
    )
  }
  return (
    <>
      <Users />
      <SsoConnections />
      {canManageKeys && <ApiKeys />}
    </>
  )
}
