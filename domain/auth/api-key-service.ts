/**
 * @module API keys: created by a tenant's client for integrations that cannot do OAuth, restricted to resource types
 * and HTTP methods. The secret (`sk_` + 256 random bits) is returned once and stored as a SHA-256 hash. A caller
 * cannot mint a key that could do more than the caller itself.
 */
import type { Clock } from '../../infra/clock.ts'
import type { Db } from '../../infra/db.ts'
import type { UnitOfWork } from '../../infra/unit-of-work.ts'
import { forbidden, notFound, validationError } from '../errors.ts'
import { newId } from '../ids.ts'
import { afterCursor, toPage } from '../pagination.ts'
import { keyPermits, normalisePermissions, scopesForPermission, type KeyPermission } from './api-key-permissions.ts'
import { satisfiesScope } from './scopes.ts'
import { generateSecret, hashSecret } from './secrets.ts'

export const API_KEY_PREFIX = 'sk'

/** The caller's own powers, to bound what a new key may do. */
export type Grantor =
  { kind: 'scopes'; scopes: readonly string[] } | { kind: 'key'; permissions: readonly KeyPermission[] }

export interface CreateApiKeyInput {
  name: string
  permissions: KeyPermission[]
  expiresAt?: Date
}

/** The principal of a request authenticated with an API key. */
export interface ApiKeyPrincipal {
  kind: 'api_key'
  tenantId: string
  keyId: string
  actorId: string
  permissions: KeyPermission[]
}

const grantorAllows = (grantor: Grantor, p: KeyPermission) =>
  grantor.kind === 'scopes'
    ? scopesForPermission(p).every((scope) => satisfiesScope(grantor.scopes, scope))
    : p.methods.every((m) => keyPermits(grantor.permissions, p.resource, m))

/** Creates an API key; the returned `secret` is never retrievable again. */
export async function createApiKey(
  uow: UnitOfWork,
  grantor: Grantor,
  createdBy: string,
  input: CreateApiKeyInput,
  clock: Clock
) {
  const permissions = normalisePermissions(input.permissions)
  const beyond = permissions.filter((p) => !grantorAllows(grantor, p))
  if (beyond.length) {
    throw forbidden(
      `A key cannot do more than its creator: ${beyond.map((p) => `${p.methods.join(',')} ${p.resource}`).join('; ')}.`
    )
  }
  if (input.expiresAt && input.expiresAt <= clock()) {
    throw validationError([{ path: 'expiresAt', code: 'in_past', message: 'The expiry must be in the future.' }])
  }
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
      expiresAt: input.expiresAt,
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

/**
 * Resolves a presented key secret to its principal, or undefined when it is unknown, revoked or expired.
 * Runs as the login role: the key is what tells us the tenant.
 */
export async function authenticateApiKey(db: Db, secret: string, now: Date): Promise<ApiKeyPrincipal | undefined> {
  const key = await db.apiKey.findUnique({ where: { secretHash: hashSecret(secret) } })
  if (!key || key.revokedAt || (key.expiresAt && key.expiresAt <= now)) return undefined
  return {
    kind: 'api_key',
    tenantId: key.tenantId,
    keyId: key.id,
    actorId: key.id,
    permissions: key.permissions as unknown as KeyPermission[],
  }
}
