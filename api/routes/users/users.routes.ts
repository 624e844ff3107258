/** @module Route table of /v1/users and /v1/sso-connections (RBAC and SSO at platform level:
 * docs/access-control.md, "Roles (RBAC)" and "SSO (OpenID Connect)"). */
import { z } from '@hono/zod-openapi'
import { PLATFORM_ROLES } from '../../../domain/auth/roles.ts'
import { COMMON_ERRORS, problemResponses, protectedRoute } from '../../openapi/routes.ts'
import { IdParam, PaginationQuery, UtcDateTime, pageOf } from '../../openapi/schemas.ts'
import { resourceId } from '../../../domain/id-schema.ts'
import { orNull } from '../../../domain/nullable.ts'

const Role = z.enum(PLATFORM_ROLES).openapi('PlatformRole', {
  description: 'OWNER and ADMIN: everything; CLINICIAN, FRONT_DESK, BILLING, READ_ONLY: see docs/access-control.md',
})

export const SsoConnectionCreate = z
  .strictObject({
    issuer: z.string().url().openapi({ example: 'https://login.example-centre.org' }),
    audience: z.string().min(1).openapi({ description: 'The client id our API is registered under at the issuer' }),
    jwksUri: z
      .string()
      .url()
      .optional()
      .openapi({
        description:
          'Only on the issuer’s own host (same scheme, host and port; else 400 `not_issuer_host`). Defaults to the key ' +
          'set the issuer’s OpenID discovery document names',
      }),
    roleClaim: z
      .string()
      .min(1)
      .max(100)
      .optional()
      .openapi({ description: 'Claim with groups or roles; default "roles"' }),
    roleMapping: z
      .record(z.string(), Role)
      .openapi({ example: { therapists: 'CLINICIAN', 'front-desk': 'FRONT_DESK' } }),
    defaultRole: Role.optional(),
  })
  .openapi('SsoConnectionCreate')

export const SsoConnection = z
  .object({
    id: resourceId('ssoConnection'),
    issuer: z.string(),
    audience: z.string(),
    jwksUri: z.string().nullable(),
    roleClaim: z.string(),
    roleMapping: z.record(z.string(), Role),
    defaultRole: orNull(Role),
    createdAt: UtcDateTime,
  })
  .openapi('SsoConnection')

export const PlatformUser = z
  .object({
    id: resourceId('platformUser'),
    email: z.string(),
    name: z.string().nullable(),
    role: Role,
    ssoIssuer: z.string().nullable(),
    disabled: z.boolean(),
    providerId: z.string().nullable().openapi({
      description: "The provider the user is: the user signs that provider's session notes. Null: linked to none",
    }),
    createdAt: UtcDateTime,
  })
  .openapi('PlatformUser')

export const PlatformUserPatch = z
  .strictObject({
    role: Role.optional(),
    disabled: z.boolean().optional(),
    providerId: orNull(resourceId('provider'))
      .optional()
      .openapi({
        description:
          'Links the user to a provider of the tenant (400 `validation_error`, `providerId` `not_found`, for any other ' +
          'id), whose session notes the user then signs; null removes the link',
      }),
  })
  .openapi('PlatformUserPatch', { description: 'A JSON merge patch (RFC 7396) of the writable fields' })

export const createSsoConnectionRoute = protectedRoute('users', {
  method: 'post',
  path: '/v1/sso-connections',
  tags: ['Users and SSO'],
  summary: 'Connect an OpenID Connect issuer for platform users',
  description:
    'Tokens the issuer signs for `audience` then sign platform users in to this tenant, as users of this tenant ' +
    '(identities are per tenant). An issuer and audience belong to one tenant: 409 `sso_connection_taken` when ' +
    'another tenant registered them, whose `detail` names this tenant’s own audience ' +
    '(`urn:therapy-care:tenant:<tenant id>`), which no other tenant may register (400 `reserved_audience`): give it ' +
    'to the identity provider and register it. 409 `conflict`: this tenant already connected this issuer and ' +
    'audience. Pairs several tenants registered before this rule keep working: a token their connections all ' +
    'accept is refused (401 `sso_connection_ambiguous`) unless the request names its tenant in `X-Tenant-Id`.',
  request: { body: { required: true, content: { 'application/json': { schema: SsoConnectionCreate } } } },
  responses: {
    201: { description: 'The connection', content: { 'application/json': { schema: SsoConnection } } },
    ...problemResponses(400, 409, 413, 415, 422, ...COMMON_ERRORS),
  },
})

export const listSsoConnectionsRoute = protectedRoute('users.read', {
  method: 'get',
  path: '/v1/sso-connections',
  tags: ['Users and SSO'],
  summary: 'List SSO connections',
  responses: {
    200: {
      description: 'The connections',
      content: { 'application/json': { schema: z.object({ data: z.array(SsoConnection) }) } },
    },
    ...problemResponses(...COMMON_ERRORS),
  },
})

export const listUsersRoute = protectedRoute('users.read', {
  method: 'get',
  path: '/v1/users',
  tags: ['Users and SSO'],
  summary: 'List platform users',
  request: { query: PaginationQuery },
  responses: {
    200: {
      description: 'A page of users',
      content: { 'application/json': { schema: pageOf(PlatformUser, 'PlatformUserPage') } },
    },
    ...problemResponses(400, ...COMMON_ERRORS),
  },
})

export const updateUserRoute = protectedRoute('users', {
  method: 'patch',
  path: '/v1/users/{id}',
  tags: ['Users and SSO'],
  summary: "Change a user's role, disable them, or link them to their provider",
  description:
    'Roles have an order: a caller changes, disables or re-enables only a user whose role it could give (it holds all ' +
    'of that role), so only an OWNER acts on an OWNER (403 `forbidden` otherwise), and gives only a role it holds all ' +
    'of. The last enabled OWNER cannot be demoted or disabled (409 `last_owner`): make another user an owner first.',
  request: {
    params: IdParam('platformUser'),
    body: { required: true, content: { 'application/json': { schema: PlatformUserPatch } } },
  },
  responses: {
    200: { description: 'The user', content: { 'application/json': { schema: PlatformUser } } },
    ...problemResponses(400, 404, 409, 413, 415, 422, ...COMMON_ERRORS),
  },
})
