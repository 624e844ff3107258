/** @module Route table of /v1/me: who the caller is (a console shows the signed-in person and what their role allows). */
import { z } from '@hono/zod-openapi'
import { PLATFORM_ROLES } from '../../../domain/auth/roles.ts'
import { ALL_SCOPES } from '../../../domain/auth/scopes.ts'
import { API_KEY_METHODS } from '../../../domain/auth/api-key-permissions.ts'
import { COMMON_ERRORS, problemResponses, protectedRouteAnyOf } from '../../openapi/routes.ts'

export const CurrentCaller = z
  .object({
    kind: z.enum(['client', 'api_key', 'user']),
    tenantId: z.string(),
    actorId: z.string().openapi({ description: 'The id the audit trail knows the caller by' }),
    scopes: z.array(z.string()).openapi({
      description: "What an OAuth client's token or a platform user's role grants; empty for an API key",
    }),
    permissions: z
      .array(z.object({ resource: z.string(), methods: z.array(z.enum(API_KEY_METHODS)) }))
      .openapi({ description: "An API key's resource × method permissions; empty for the others" }),
    user: z
      .object({ id: z.string(), email: z.string(), name: z.string().nullable(), role: z.enum(PLATFORM_ROLES) })
      .nullable()
      .openapi({ description: 'The signed-in platform user (SSO); null for a client or a key' }),
  })
  .openapi('CurrentCaller')

export const getCurrentCallerRoute = protectedRouteAnyOf(ALL_SCOPES, {
  method: 'get',
  path: '/v1/me',
  tags: ['Users and SSO'],
  summary: 'Who the caller is',
  description:
    'The caller’s own principal: its kind, tenant, scopes (or an API key’s permissions) and, for a platform user ' +
    'signed in through SSO, their own user record with its role. Any credential of the tenant may ask (every scope ' +
    'opens it); it tells the caller nothing about anyone else. The console reads it to hide what a role may not do — ' +
    'the API refuses those calls either way.',
  responses: {
    200: { description: 'The caller', content: { 'application/json': { schema: CurrentCaller } } },
    ...problemResponses(...COMMON_ERRORS),
  },
})
