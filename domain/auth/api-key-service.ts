/**
 * @module API keys: created by a tenant's client for integrations that cannot do OAuth, restricted to resource types
 * and HTTP methods. The secret (`sk_` + 256 random bits) is returned once and stored as a SHA-256 hash. A caller
 * cannot mint a key that could do more than the caller itself.
 */
import type { Clock } from '../../infra/clock.ts'
import { Prisma } from '../../generated/prisma/client.ts'
import type { Db } from '../../infra/db.ts'
import type { UnitOfWork } from '../../infra/unit-of-work.ts'
import { forbidden, notFound, validationError } from '../errors.ts'
import { newId } from '../ids.ts'
import { afterCursor, toPage } from '../pagination.ts'
import { keyPermits, normalisePermissions, scopesForPermission, type KeyPermission } from './api-key-permissions.ts'
import { ID_PREFIXES } from '../id-prefixes.ts'
import type { PlatformRole } from '../../generated/prisma/enums.ts'
import { ROLE_SCOPES } from './roles.ts'
import { satisfiesScope } from './scopes.ts'
import { assertLinkableProvider, LINKING_SCOPE } from './provider-links.ts'
import { generateSecret, hashSecret } from './secrets.ts'
import { DAY_MS } from '../../common/time/calendar.ts'

export const API_KEY_PREFIX = 'sk'

/**
 * The caller's own powers, to bound what a new key may do and how long it may live: a key never outlives the key that
 * made it. A client's or a user's key lives while its grantor does (checked at every use, {@link authenticateApiKey}).
 */
export type Grantor =
  | { kind: 'scopes'; scopes: readonly string[] }
  | { kind: 'key'; permissions: readonly KeyPermission[]; expiresAt: Date | null }

export interface CreateApiKeyInput {
  name: string
  permissions: KeyPermission[]
  expiresAt?: Date
  /** The provider the key acts for: it then signs that provider's session notes (provider-links.ts). */
  providerId?: string
}

/** The longest a key may live, and the expiry a key asked for without one gets (API_KEY_MAX_LIFETIME_DAYS). */
export const DEFAULT_MAX_KEY_LIFETIME_DAYS = 365

/** Links of keys made by keys that a presented key's check follows; a longer chain is refused. */
const MAX_GRANT_CHAIN = 8

/** The expiry of a new key: asked for, or the longest allowed; never past its grantor key's or the maximum. */
function expiryOf(input: CreateApiKeyInput, grantor: Grantor, now: Date, maxLifetimeDays: number): Date {
  const longest = new Date(now.getTime() + maxLifetimeDays * DAY_MS)
  const grantorExpiry = grantor.kind === 'key' ? grantor.expiresAt : null
  const limit = grantorExpiry && grantorExpiry < longest ? grantorExpiry : longest
  if (!input.expiresAt) return limit
  if (input.expiresAt <= now) {
    throw validationError([{ path: 'expiresAt', code: 'in_past', message: 'The expiry must be in the future.' }])
  }
  if (input.expiresAt > limit) {
    const why =
      limit === grantorExpiry
        ? `the key that creates it expires at ${limit.toISOString()}`
        : `keys live at most ${maxLifetimeDays} days`
    throw validationError([
      {
        path: 'expiresAt',
        code: 'beyond_limit',
        message: `The expiry must be at most ${limit.toISOString()}: ${why}.`,
      },
    ])
  }
  return input.expiresAt
}

/** The principal of a request authenticated with an API key. */
export interface ApiKeyPrincipal {
  kind: 'api_key'
  tenantId: string
  keyId: string
  actorId: string
  permissions: KeyPermission[]
  /** When the key expires: a key it makes expires no later. */
  expiresAt: Date | null
}

/** Who `createdBy` names for a key made by the platform's operator (`npm run cli -- keys create`). */
export const OPERATOR_GRANTOR = 'operator'

const grantorAllows = (grantor: Grantor, p: KeyPermission) =>
  grantor.kind === 'scopes'
    ? scopesForPermission(p).every((scope) => satisfiesScope(grantor.scopes, scope))
    : p.methods.every((m) => keyPermits(grantor.permissions, p.resource, m))

/** Whether a grantor may link a key to a provider: only one that holds the linking scope (provider-links.ts). */
const grantorLinks = (grantor: Grantor) =>
  grantor.kind === 'scopes'
    ? satisfiesScope(grantor.scopes, LINKING_SCOPE)
    : keyPermits(grantor.permissions, LINKING_SCOPE, 'PATCH')

/**
 * Creates an API key; the returned `secret` is never retrievable again.
 * @throws AppError `forbidden` for permissions beyond the grantor's, or a provider link by a grantor without the
 *   `users` scope; `validation_error` for an expiry beyond the limit or a provider that is not the tenant's
 */
export async function createApiKey(
  uow: UnitOfWork,
  grantor: Grantor,
  createdBy: string,
  input: CreateApiKeyInput,
  clock: Clock,
  maxLifetimeDays = DEFAULT_MAX_KEY_LIFETIME_DAYS
) {
  const permissions = normalisePermissions(input.permissions)
  const beyond = permissions.filter((p) => !grantorAllows(grantor, p))
  if (beyond.length) {
    throw forbidden(
      `A key cannot do more than its creator: ${beyond.map((p) => `${p.methods.join(',')} ${p.resource}`).join('; ')}.`
    )
  }
  if (input.providerId !== undefined) {
    if (!grantorLinks(grantor)) {
      throw forbidden(
        `Linking a key to a provider lets it sign that provider's notes: it takes the "${LINKING_SCOPE}" scope, ` +
          "an administrator's, which the caller does not hold."
      )
    }
    await assertLinkableProvider(uow, input.providerId)
  }
  const expiresAt = expiryOf(input, grantor, clock(), maxLifetimeDays)
  const secret = generateSecret(API_KEY_PREFIX)
  const key = await uow.tx.apiKey.create({
    data: {
      id: newId('apiKey'),
      tenantId: uow.tenantId,
      name: input.name,
      prefix: secret.slice(0, 10),
      secretHash: hashSecret(secret),
      // eslint-disable-next-line @typescript-eslint/no-unnecessary-type-assertion -- false positive: tsc rejects KeyPermission[] as a Prisma InputJsonValue (no index signature), so the cast is needed
      permissions: permissions as unknown as object[],
      createdBy,
      expiresAt,
      providerId: input.providerId ?? null,
    },
  })
  return { key, secret }
}

/** A page of the tenant's keys, newest last. */
export async function listApiKeys({ tx, tenantId }: UnitOfWork, query: { limit: number; cursor?: string }) {
  const after = afterCursor(query.cursor)
  const rows = await tx.apiKey.findMany({
    where: { tenantId, ...(after ? { id: { gt: after } } : {}) },
    orderBy: { id: 'asc' },
    take: query.limit + 1,
  })
  return toPage(rows, query.limit)
}

/** Revokes a key of the tenant; revoking twice is harmless. @throws AppError `not_found` */
export async function revokeApiKey({ tx, tenantId }: UnitOfWork, id: string, clock: Clock) {
  const key = await tx.apiKey.findFirst({ where: { id, tenantId } })
  if (!key) throw notFound('API key', id)
  if (key.revokedAt) return key
  return tx.apiKey.update({ where: { id }, data: { revokedAt: clock() } })
}

/** A presented key and the keys that made it, each with its root grantor's state (at most one row has it). */
interface GrantLink {
  id: string
  tenant_id: string
  permissions: KeyPermission[]
  created_by: string | null
  revoked_at: Date | null
  expires_at: Date | null
  client_revoked_at: Date | null
  client_scopes: string[] | null
  user_disabled_at: Date | null
  user_role: PlatformRole | null
}

/** Whether the credential at the root of a key's chain still grants the key: not revoked, disabled or demoted. */
function rootGrants(root: GrantLink, permissions: readonly KeyPermission[]): boolean {
  const grantor = root.created_by ?? ''
  // Made by the platform's operator (the CLI): no credential of the tenant's to outlive.
  if (grantor === OPERATOR_GRANTOR) return true
  const covered = (scopes: readonly string[]) =>
    permissions.every((p) => scopesForPermission(p).every((scope) => satisfiesScope(scopes, scope)))
  if (grantor.startsWith(`${ID_PREFIXES.apiClient}_`))
    return root.client_scopes !== null && root.client_revoked_at === null && covered(root.client_scopes)
  if (grantor.startsWith(`${ID_PREFIXES.platformUser}_`))
    return root.user_role !== null && root.user_disabled_at === null && covered(ROLE_SCOPES[root.user_role])
  // A key whose grantor key is gone, or a grantor of no kind we know: nothing vouches for it.
  return false
}

/**
 * Resolves a presented key secret to its principal, or undefined when it is unknown, revoked or expired, or when
 * anything it was granted by no longer grants it: a key that made it revoked or expired, the client that made the
 * first of them revoked (or its scopes cut), the user disabled or demoted below the key's permissions. One statement
 * walks the chain, at every use, so a revocation holds at once on every instance.
 * Runs as the login role: the key is what tells us the tenant.
 */
export async function authenticateApiKey(db: Db, secret: string, now: Date): Promise<ApiKeyPrincipal | undefined> {
  const chain = await grantChain(db, Prisma.sql`secret_hash = ${hashSecret(secret)}`)
  const key = chain[0]
  if (!key || !chainGrants(chain, now)) return undefined
  return {
    kind: 'api_key',
    tenantId: key.tenant_id,
    keyId: key.id,
    actorId: key.id,
    permissions: key.permissions,
    expiresAt: key.expires_at,
  }
}

/** Whether a key works now: none of its chain revoked or expired, and its root grantor still grants it. */
function chainGrants(chain: GrantLink[], now: Date): boolean {
  const key = chain[0]
  if (!key) return false
  if (chain.some((link) => link.revoked_at || (link.expires_at && link.expires_at <= now))) return false
  return rootGrants(chain[chain.length - 1]!, key.permissions)
}

/**
 * Whether the tenant's key `id` works now, by the check its every use makes (GET /v1/credentials).
 * @param db - the unit's transaction or the login role's client
 */
export async function apiKeyWorks(db: Pick<Db, '$queryRaw'>, tenantId: string, id: string, now: Date) {
  return chainGrants(await grantChain(db, Prisma.sql`id = ${id} AND tenant_id = ${tenantId}`), now)
}

/** The key that `where` finds and the keys that made it, each with its root grantor's state (see GrantLink). */
function grantChain(db: Pick<Db, '$queryRaw'>, where: Prisma.Sql): Promise<GrantLink[]> {
  return db.$queryRaw<GrantLink[]>`
    WITH RECURSIVE chain AS (
      SELECT id, tenant_id, permissions, created_by, revoked_at, expires_at, 0 AS depth
      FROM api_keys WHERE ${where}
      UNION ALL
      SELECT k.id, k.tenant_id, k.permissions, k.created_by, k.revoked_at, k.expires_at, c.depth + 1
      FROM chain c JOIN api_keys k ON k.id = c.created_by AND k.tenant_id = c.tenant_id
      WHERE c.depth < ${MAX_GRANT_CHAIN}::int)
    SELECT c.id, c.tenant_id, c.permissions, c.created_by, c.revoked_at, c.expires_at,
      cl.revoked_at AS client_revoked_at, cl.scopes AS client_scopes,
      u.disabled_at AS user_disabled_at, u.role::text AS user_role
    FROM chain c
    LEFT JOIN api_clients cl ON cl.id = c.created_by AND cl.tenant_id = c.tenant_id
    LEFT JOIN platform_users u ON u.id = c.created_by AND u.tenant_id = c.tenant_id
    ORDER BY c.depth`
}
