/** @module /v1/api-keys: thin handlers over the API-key service. */
import { OpenAPIHono, type z } from '@hono/zod-openapi'
import type { KeyPermission } from '../../../domain/auth/api-key-permissions.ts'
import { checkApiKeyQuota } from '../../../domain/auth/api-key-quota.ts'
import { createApiKey, listApiKeys, revokeApiKey, type Grantor } from '../../../domain/auth/api-key-service.ts'
import type { Principal } from '../../../domain/auth/principal.ts'
import type { AppDeps, AppEnv } from '../../app-env.ts'
import { validationHook } from '../../openapi/validation-hook.ts'
import { createApiKeyRoute, listApiKeysRoute, revokeApiKeyRoute, type ApiKey } from './api-keys.routes.ts'

type ApiKeyRow = Awaited<ReturnType<typeof revokeApiKey>>

const toApiKey = (k: ApiKeyRow): z.infer<typeof ApiKey> => ({
  id: k.id,
  name: k.name,
  prefix: k.prefix,
  permissions: k.permissions as unknown as KeyPermission[],
  createdAt: k.createdAt.toISOString(),
  expiresAt: k.expiresAt?.toISOString() ?? null,
  revokedAt: k.revokedAt?.toISOString() ?? null,
  providerId: k.providerId,
})

const grantorOf = (p: Principal): Grantor =>
  p.kind === 'api_key'
    ? { kind: 'key', permissions: p.permissions, expiresAt: p.expiresAt }
    : { kind: 'scopes', scopes: p.scopes }

export function apiKeyRoutes({ clock, config }: Pick<AppDeps, 'clock' | 'config'>) {
  return new OpenAPIHono<AppEnv>({ defaultHook: validationHook })
    .openapi(createApiKeyRoute, async (c) => {
      const body = c.req.valid('json')
      const principal = c.var.principal
      const { key, secret } = await createApiKey(
        c.var.uow,
        grantorOf(principal),
        principal.actorId,
        { ...body, expiresAt: body.expiresAt ? new Date(body.expiresAt) : undefined },
        clock,
        config.API_KEY_MAX_LIFETIME_DAYS
      )
      await checkApiKeyQuota(c.var.uow, config.API_KEYS_PER_TENANT, clock())
      c.header('Location', `/v1/api-keys/${key.id}`)
      // The key itself, shown once: its idempotency record is sealed, or not kept (a replay answers 409).
      c.set('sealStoredResponse', true)
      return c.json({ ...toApiKey(key), secret }, 201)
    })
    .openapi(listApiKeysRoute, async (c) => {
      const page = await listApiKeys(c.var.uow, c.req.valid('query'))
      return c.json({ data: page.data.map(toApiKey), nextCursor: page.nextCursor }, 200)
    })
    .openapi(revokeApiKeyRoute, async (c) =>
      c.json(toApiKey(await revokeApiKey(c.var.uow, c.req.valid('param').id, clock)), 200)
    )
}
