/** @module Route table of /v1/api-keys: keys restricted to resource types and HTTP methods
 * (docs/access-control.md). */
import { z } from '@hono/zod-openapi'
import { API_KEY_METHODS, API_KEY_RESOURCES } from '../../../domain/auth/api-key-permissions.ts'
import { COMMON_ERRORS, problemResponses, protectedRoute } from '../../openapi/routes.ts'
import { IdParam, OffsetDateTime, PaginationQuery, UtcDateTime, pageOf } from '../../openapi/schemas.ts'
import { resourceId } from '../../../domain/id-schema.ts'

const Permission = z
  .strictObject({
    resource: z.enum(API_KEY_RESOURCES as [string, ...string[]]).openapi({ example: 'children' }),
    methods: z
      .array(z.enum(API_KEY_METHODS))
      .min(1)
      .openapi({ example: ['GET'] }),
  })
  .openapi('ApiKeyPermission')

export const ApiKeyCreate = z
  .strictObject({
    name: z.string().trim().min(1).max(200).openapi({ example: 'Front-desk kiosk' }),
    permissions: z.array(Permission).min(1).max(50),
    expiresAt: OffsetDateTime.optional().openapi({
      format: 'date-time',
      description:
        "When the key stops working: at most the platform's maximum lifetime (365 days by default) and never after the key that creates it expires; without it, the latest allowed.",
    }),
    providerId: resourceId('provider').optional().openapi({
      description:
        "Links the key to a provider of the tenant: the key then signs that provider's session notes, and only a linked key signs any. Only a creator holding the `users` scope, an administrator's, may set it (403 `forbidden` otherwise); 400 `validation_error` (`providerId` `not_found`) for a provider not the tenant's.",
    }),
  })
  .openapi('ApiKeyCreate', {
    description:
      'A key may be granted only what its creator holds (an OAuth client its scopes, a user its role, a key its permissions), and lives only while its creator does: a key stops working when the client that made it is revoked, the user is disabled or demoted below its permissions, or the key that made it is revoked or expires.',
  })

export const ApiKey = z
  .object({
    id: resourceId('apiKey'),
    name: z.string(),
    prefix: z.string().openapi({ description: 'The first characters of the secret, to recognise the key' }),
    permissions: z.array(Permission),
    createdAt: UtcDateTime,
    expiresAt: UtcDateTime.nullable(),
    revokedAt: UtcDateTime.nullable(),
    providerId: z
      .string()
      .nullable()
      .openapi({ description: 'The provider whose session notes the key signs; null: linked to none' }),
  })
  .openapi('ApiKey')

export const ApiKeyWithSecret = ApiKey.extend({
  secret: z
    .string()
    .openapi({ description: 'Shown only in this response. Send it as `Authorization: Bearer <secret>`.' }),
}).openapi('ApiKeyWithSecret')

export const createApiKeyRoute = protectedRoute('api_keys', {
  method: 'post',
  path: '/v1/api-keys',
  tags: ['API keys'],
  summary: 'Create an API key',
  description:
    'A tenant holds at most API_KEYS_PER_TENANT active keys (neither revoked nor expired; 100 by default): one more is ' +
    '409 `quota_exceeded`, whose detail names the limit (docs/rate-limits.md, "Quotas"). Revoke a key to make room.',
  request: { body: { required: true, content: { 'application/json': { schema: ApiKeyCreate } } } },
  responses: {
    201: {
      description: 'The key and its secret (shown once)',
      content: { 'application/json': { schema: ApiKeyWithSecret } },
    },
    ...problemResponses(400, 409, 413, 415, 422, ...COMMON_ERRORS),
  },
})

export const listApiKeysRoute = protectedRoute('api_keys', {
  method: 'get',
  path: '/v1/api-keys',
  tags: ['API keys'],
  summary: 'List API keys (never their secrets)',
  request: { query: PaginationQuery },
  responses: {
    200: { description: 'A page of keys', content: { 'application/json': { schema: pageOf(ApiKey, 'ApiKeyPage') } } },
    ...problemResponses(400, ...COMMON_ERRORS),
  },
})

export const revokeApiKeyRoute = protectedRoute('api_keys', {
  method: 'delete',
  path: '/v1/api-keys/{id}',
  tags: ['API keys'],
  summary: 'Revoke an API key',
  request: { params: IdParam('apiKey') },
  responses: {
    200: { description: 'The revoked key', content: { 'application/json': { schema: ApiKey } } },
    ...problemResponses(404, 409, 422, ...COMMON_ERRORS),
  },
})
