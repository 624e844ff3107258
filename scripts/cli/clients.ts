/** @module `clients`, `api-keys` and `keys` commands: credentials of a tenant's integrations, and the signing key. */
import { parseArgs } from 'node:util'
import { createApiKey, listApiKeys, OPERATOR_GRANTOR, revokeApiKey } from '../../domain/auth/api-key-service.ts'
import type { KeyPermission } from '../../domain/auth/api-key-permissions.ts'
import { ALL_SCOPES } from '../../domain/auth/scopes.ts'
import { createSigningKeys } from '../../domain/auth/signing-keys.ts'
import { CLIENT_REVOCATION_TTL_MS, clientRevocationKey } from '../../domain/auth/revocation-list.ts'
import { provisionClient } from '../../domain/tenants/provision-client.ts'
import { isValidTimeZone } from '../../domain/time.ts'
import { systemClock } from '../../infra/clock.ts'
import { runInUnitOfWork } from '../../infra/unit-of-work.ts'
import { printJson, secretBoxOf, withDatabase, type CliContext } from './database.ts'
import { CLIENTS_USAGE, required, timeZoneOption, UsageError } from './usage.ts'
import { DAY_MS } from '../../common/time/calendar.ts'

export async function clients(command: string | undefined, args: string[], cli: CliContext) {
  const { values } = parseArgs({
    args,
    options: {
      tenant: { type: 'string' },
      scopes: { type: 'string' },
      name: { type: 'string' },
      'time-zone': { type: 'string' },
      client: { type: 'string' },
    },
  })
  const tenant = required(values.tenant, 'tenant', CLIENTS_USAGE)
  if (command === 'create') {
    const scopes = required(values.scopes, 'scopes', CLIENTS_USAGE)
    await withDatabase(cli, async (db) =>
      printJson(
        cli,
        await provisionClient(db, {
          tenantName: tenant,
          scopes: scopes.split(/\s+/).filter(Boolean),
          clientName: values.name,
          timeZone: timeZoneOption(values['time-zone'], 'UTC', isValidTimeZone),
        })
      )
    )
    return
  }
  if (command === 'list') {
    await withDatabase(cli, (db) =>
      runInUnitOfWork(db, tenant, async ({ tx }) =>
        printJson(
          cli,
          await tx.apiClient.findMany({
            orderBy: { id: 'asc' },
            select: { id: true, name: true, scopes: true, createdAt: true, revokedAt: true },
          })
        )
      )
    )
    return
  }
  if (command === 'revoke') {
    const clientId = required(values.client, 'client', CLIENTS_USAGE)
    await withDatabase(cli, (db) =>
      runInUnitOfWork(db, tenant, async ({ tx }) => {
        const now = systemClock()
        // Its refresh tokens die with it, and the access tokens already issued: the client goes on every instance's
        // revocation list (within its one-second sync), until the longest an access token lives has passed.
        const revoked = await tx.apiClient.updateMany({
          where: { id: clientId, revokedAt: null },
          data: { revokedAt: now },
        })
        if (revoked.count === 0) throw new UsageError(`No active client ${clientId} in tenant ${tenant}`)
        await tx.refreshToken.updateMany({ where: { clientId, revokedAt: null }, data: { revokedAt: now } })
        await tx.revokedAccessToken.createMany({
          data: [
            {
              jti: clientRevocationKey(clientId),
              tenantId: tenant,
              expiresAt: new Date(now.getTime() + CLIENT_REVOCATION_TTL_MS),
            },
          ],
          skipDuplicates: true,
        })
        printJson(cli, { clientId, revokedAt: now.toISOString() })
      })
    )
    return
  }
  throw new UsageError(CLIENTS_USAGE)
}

/** "children:GET bookings:GET,POST" → permissions. */
function parsePermissions(text: string): KeyPermission[] {
  return text
    .split(/\s+/)
    .filter(Boolean)
    .map((entry) => {
      const [resource, methods] = entry.split(':')
      if (!resource || !methods) throw new UsageError(`Not a permission: ${entry} (expected resource:METHOD[,METHOD])`)
      return { resource, methods: methods.split(',').map((m) => m.toUpperCase()) } as KeyPermission
    })
}

export async function apiKeys(command: string | undefined, args: string[], cli: CliContext) {
  const { values } = parseArgs({
    args,
    options: {
      tenant: { type: 'string' },
      name: { type: 'string' },
      permissions: { type: 'string' },
      'expires-in-days': { type: 'string' },
      provider: { type: 'string' },
      key: { type: 'string' },
    },
  })
  const tenantId = required(values.tenant, 'tenant', CLIENTS_USAGE)
  const clock = systemClock
  await withDatabase(cli, (db) =>
    runInUnitOfWork(db, tenantId, async (uow) => {
      if (command === 'create') {
        const days = values['expires-in-days'] === undefined ? undefined : Number(values['expires-in-days'])
        if (days !== undefined && !(days > 0)) throw new UsageError('--expires-in-days must be a positive number')
        // The operator may grant anything the API knows; the key's own permissions are still validated.
        const { key, secret } = await createApiKey(
          uow,
          { kind: 'scopes', scopes: ALL_SCOPES },
          OPERATOR_GRANTOR,
          {
            name: required(values.name, 'name', CLIENTS_USAGE),
            permissions: parsePermissions(required(values.permissions, 'permissions', CLIENTS_USAGE)),
            expiresAt: days === undefined ? undefined : new Date(clock().getTime() + days * DAY_MS),
            providerId: values.provider,
          },
          clock
        )
        const { id, name, permissions, expiresAt, providerId } = key
        printJson(cli, { id, name, permissions, expiresAt, providerId, secret })
      } else if (command === 'list') {
        const all = []
        let cursor: string | undefined
        do {
          const page = await listApiKeys(uow, { limit: 100, cursor })
          all.push(...page.data.map(({ secretHash: _hash, ...visible }) => visible))
          cursor = page.nextCursor ?? undefined
        } while (cursor)
        printJson(cli, all)
      } else if (command === 'revoke') {
        const { secretHash: _hash, ...revoked } = await revokeApiKey(
          uow,
          required(values.key, 'key', CLIENTS_USAGE),
          clock
        )
        printJson(cli, revoked)
      } else {
        throw new UsageError(CLIENTS_USAGE)
      }
    })
  )
}

/**
 * Rotates the access-token signing key: new tokens are signed with a new key; the old one stays in the JWKS until
 * the tokens it signed have expired, so no valid token is invalidated.
 */
export async function keys(command: string | undefined, cli: CliContext) {
  if (command !== 'rotate') throw new UsageError(CLIENTS_USAGE)
  const secrets = secretBoxOf(cli)
  await withDatabase(cli, async (db) => {
    const publishForSeconds = Number(cli.env.ACCESS_TOKEN_TTL_SECONDS ?? 900) + 300
    const config = { publishForSeconds, clock: systemClock, secrets }
    printJson(cli, { activeKid: await createSigningKeys(db, config).rotate() })
  })
}
