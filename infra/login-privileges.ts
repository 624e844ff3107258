/**
 * @module The check, at every API and worker start, that the process logs in with least privilege (issue 76;
 * docs/security.md, "Least privilege in the database"). Row-level security binds neither a superuser, nor a role with
 * BYPASSRLS, nor the owner of the tables (no FORCE ROW LEVEL SECURITY): a process logging in as one of them isolates
 * tenants only as long as every statement of the code does, with nothing beneath it. So a process refuses to start
 * with such a login unless DATABASE_ALLOW_PRIVILEGED_LOGIN says this is development, and the embedded PGlite (one
 * superuser login, where the unit's role is the control) is accepted as it is.
 */
import pg from 'pg'
import type { DatabaseLogins } from './db.ts'
import type { Logger } from './logger.ts'

/** What a login may do beyond the platform's two ordinary logins. */
export interface LoginPrivileges {
  login: string
  superuser: boolean
  bypassRls: boolean
  /** Tables the login owns, or whose owner it is a member of (it can become the owner). */
  ownedTables: number
  /** The embedded PGlite: one login, a superuser, for everything. */
  embedded: boolean
}

const PRIVILEGES_SQL = `
  SELECT current_user AS login, r.rolsuper AS superuser, r.rolbypassrls AS bypass_rls,
    (SELECT count(*)::int FROM pg_tables t
      WHERE t.schemaname NOT IN ('pg_catalog', 'information_schema')
        AND pg_has_role(current_user, t.tableowner, 'MEMBER')) AS owned_tables,
    version() LIKE '%wasm32%' AS embedded
  FROM pg_roles r WHERE r.rolname = current_user`

/** What is wrong with a login for a process of the platform, in words; empty when nothing is. */
export function privilegeProblems(privileges: LoginPrivileges): string[] {
  return [
    ...(privileges.superuser ? ['is a superuser'] : []),
    ...(privileges.bypassRls ? ['bypasses row-level security (BYPASSRLS)'] : []),
    ...(privileges.ownedTables > 0 ? [`owns ${privileges.ownedTables} tables or can become their owner`] : []),
  ]
}

async function readPrivileges(url: string): Promise<LoginPrivileges> {
  const client = new pg.Client({ connectionString: url })
  await client.connect()
  try {
    const row = (await client.query(PRIVILEGES_SQL)).rows[0] as {
      login: string
      superuser: boolean
      bypass_rls: boolean
      owned_tables: number
      embedded: boolean
    }
    return {
      login: row.login,
      superuser: row.superuser,
      bypassRls: row.bypass_rls,
      ownedTables: row.owned_tables,
      embedded: row.embedded,
    }
  } finally {
    await client.end()
  }
}

/**
 * Refuses to go on with a privileged login (see the module comment).
 * @param allowPrivileged - DATABASE_ALLOW_PRIVILEGED_LOGIN (development only): a warning instead
 * @throws Error naming the login, what it may do, and what to set instead
 */
export async function assertLeastPrivilege(
  logins: DatabaseLogins,
  options: { allowPrivileged: boolean; logger: Logger }
): Promise<void> {
  const uses: Array<[string, string]> = [['DATABASE_URL', logins.system]]
  if (logins.units !== logins.system) uses.push(['DATABASE_APP_URL', logins.units])
  for (const [variable, url] of uses) {
    const privileges = await readPrivileges(url)
    const problems = privilegeProblems(privileges)
    if (problems.length === 0 || privileges.embedded) continue
    const what = `The login "${privileges.login}" of ${variable} ${problems.join(', ')}`
    if (options.allowPrivileged) {
      options.logger.warn({ login: privileges.login, problems }, `${what}: accepted (DATABASE_ALLOW_PRIVILEGED_LOGIN)`)
      continue
    }
    throw new Error(
      `${what}, so row-level security does not bind it. Log in as the platform's own logins (npm run db:migrate ` +
        'makes them: docs/security.md, "Least privilege in the database"), or set ' +
        'DATABASE_ALLOW_PRIVILEGED_LOGIN=true in development.'
    )
  }
}
