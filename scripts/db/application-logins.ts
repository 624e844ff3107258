/**
 * @module The platform's two database logins on PostgreSQL (docs/security.md, "Least privilege in the database"),
 * made by whoever migrates, as the tables' owner, before the API and the workers start: `npm start`, the compose
 * file's `migrate` service and the test suite's setup. Both are ordinary roles (not superuser, owning nothing, not
 * members of the owner):
 * - the units' login joins only therapy_app, without inheriting it (NOINHERIT): it can become therapy_app, bound by
 *   row-level security, and as itself it reads nothing, so a `RESET ROLE` inside a unit's transaction ends its access
 *   rather than widening it;
 * - the system login joins only therapy_system (the cross-tenant statements' grants and policies, migration
 *   20261127100000_system_role).
 * Idempotent: an existing login gets its password and attributes set again, so a rotated password is applied by the
 * next start. A login that belongs to any other role, or that is a superuser, is refused rather than quietly
 * trusted.
 */
import { createHmac } from 'node:crypto'
import pg from 'pg'
import type { DatabaseLogins } from '../../infra/db.ts'

/** The group role each login joins, and whether the login inherits its privileges. */
const MEMBERSHIP = {
  units: { group: 'therapy_app', inherit: false },
  system: { group: 'therapy_system', inherit: true },
} as const

/** SQLSTATE of CREATE ROLE for a name another session made first. */
const DUPLICATE_OBJECT = '42710'

/** A login's name and password, read from its URL. */
export function loginOf(url: string): { user: string; password: string } {
  const parsed = new URL(url)
  const user = decodeURIComponent(parsed.username)
  const password = decodeURIComponent(parsed.password)
  if (!user || !password) throw new Error(`a platform database login needs a user and a password in its URL`)
  return { user, password }
}

async function ensureLogin(
  owner: pg.Client,
  url: string,
  membership: (typeof MEMBERSHIP)[keyof typeof MEMBERSHIP]
): Promise<void> {
  const { user, password } = loginOf(url)
  const name = owner.escapeIdentifier(user)
  // Role attributes take literals, not parameters; both are escaped by the driver.
  const attributes = `LOGIN ${membership.inherit ? 'INHERIT' : 'NOINHERIT'} PASSWORD ${owner.escapeLiteral(password)}`
  const exists = await owner.query('SELECT rolsuper FROM pg_roles WHERE rolname = $1', [user])
  if (exists.rowCount === 0) {
    try {
      await owner.query(`CREATE ROLE ${name} ${attributes}`)
    } catch (error) {
      if ((error as { code?: string }).code !== DUPLICATE_OBJECT) throw error
    }
  }
  await owner.query(`ALTER ROLE ${name} WITH ${attributes}`)
  await owner.query(`GRANT ${owner.escapeIdentifier(membership.group)} TO ${name}`)
  const { rows } = await owner.query<{ super: boolean; owns: boolean; others: string[] }>(
    `SELECT r.rolsuper OR r.rolbypassrls AS super,
            EXISTS (SELECT FROM pg_class c WHERE c.relowner = r.oid) AS owns,
            ARRAY(SELECT g.rolname::text FROM pg_auth_members m JOIN pg_roles g ON g.oid = m.roleid
                   WHERE m.member = r.oid AND g.rolname <> $2) AS others
       FROM pg_roles r WHERE r.rolname = $1`,
    [user, membership.group]
  )
  const login = rows[0]
  if (!login) throw new Error(`the database login ${user} was not made`)
  if (login.super || login.owns || login.others.length > 0) {
    throw new Error(
      `the database login ${user} must be an ordinary role that owns nothing and belongs only to ${membership.group}` +
        ` (superuser or BYPASSRLS: ${login.super}, owns tables: ${login.owns}, also a member of: ${login.others.join(', ') || 'nothing'})`
    )
  }
}

/**
 * Makes (or updates) the units' and the system logins, and grants the system role what tables made since its
 * migration need.
 * @param ownerUrl - a login that owns the platform's tables and may create roles (CREATEROLE)
 * @param logins - the two logins' URLs (their user names and passwords are used)
 */
export async function provisionApplicationLogins(ownerUrl: string, logins: DatabaseLogins): Promise<void> {
  if (loginOf(logins.units).user === loginOf(logins.system).user) {
    throw new Error('the units and the system statements need two different database logins')
  }
  const owner = new pg.Client({ connectionString: ownerUrl })
  await owner.connect()
  try {
    await concurrentlySafe(() => ensureLogin(owner, logins.units, MEMBERSHIP.units))
    await concurrentlySafe(() => ensureLogin(owner, logins.system, MEMBERSHIP.system))
    await owner.query('SELECT app_grant_system_role()')
  } finally {
    await owner.end()
  }
}

/**
 * Runs `step` again when another session changed the same role at the same moment: roles belong to the server, so two
 * set-ups of two databases (two test runs, two starts) may alter one login at once, and PostgreSQL then refuses the
 * later catalogue update ("tuple concurrently updated"). The step is idempotent.
 */
async function concurrentlySafe(step: () => Promise<void>): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await step()
    } catch (error) {
      const concurrent = /tuple concurrently (updated|deleted)/.test(String((error as Error).message))
      if (!concurrent || attempt >= 5) throw error
      await new Promise((resolve) => setTimeout(resolve, 50 * attempt))
    }
  }
}

/**
 * The logins' URLs for a server and database given by `ownerUrl`: its host, port and database with each login's
 * name and password.
 */
export function loginUrls(
  ownerUrl: string,
  credentials: Record<keyof DatabaseLogins, { user: string; password: string }>
): DatabaseLogins {
  const as = ({ user, password }: { user: string; password: string }) => {
    const url = new URL(ownerUrl)
    url.username = encodeURIComponent(user)
    url.password = encodeURIComponent(password)
    return url.toString()
  }
  return { system: as(credentials.system), units: as(credentials.units) }
}

/**
 * Two logins named after the owner's (`<owner>_units_login`, `<owner>_system_login`) with passwords derived from the owner's URL
 * (HMAC-SHA-256): what `npm start` on a PostgreSQL server and the test suite use, so that every start and every run
 * against one server agree on them without keeping a file. They are as secret as the owner's password, which whoever
 * derives them holds anyway; the compose file names its own (docs/operations.md).
 */
export function derivedLogins(ownerUrl: string, database = new URL(ownerUrl).pathname.slice(1)): DatabaseLogins {
  const { user: owner, password } = loginOf(ownerUrl)
  // Roles belong to the server, not to one database: the key leaves the database out, so every database of the server
  // (each test file's, each start's) derives the same passwords and none changes another's.
  const key = `${owner}:${password}@${new URL(ownerUrl).host}`
  const derive = (use: keyof DatabaseLogins) => {
    const user = `${owner}_${use}_login`
    return { user, password: createHmac('sha256', key).update(user).digest('hex').slice(0, 32) }
  }
  const url = new URL(ownerUrl)
  url.pathname = `/${database}`
  return loginUrls(url.toString(), { units: derive('units'), system: derive('system') })
}
