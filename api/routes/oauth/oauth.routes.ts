/**
 * @module The token endpoint's schemas and OpenAPI entry. The endpoint answers OAuth errors (RFC 6749 §5.2), not
 * problem documents, so it parses its body itself instead of using the shared validation hook.
 */
import { z } from '@hono/zod-openapi'
import { ALL_SCOPES } from '../../../domain/auth/scopes.ts'

export const TokenRequest = z
  .discriminatedUnion('grant_type', [
    z.object({
      grant_type: z.literal('client_credentials'),
      client_id: z.string().min(1).optional(),
      client_secret: z.string().min(1).optional(),
      scope: z.string().optional().openapi({ description: 'Space-separated scopes; defaults to all the client holds' }),
    }),
    z.object({
      grant_type: z.literal('refresh_token'),
      refresh_token: z.string().min(1),
      client_id: z.string().min(1).optional(),
      client_secret: z.string().min(1).optional(),
      scope: z.string().optional().openapi({ description: 'Optional narrowing of the original scopes' }),
    }),
  ])
  .openapi('TokenRequest', {
    description: 'Client credentials go in the body or in HTTP Basic authentication (not both).',
  })

export const TokenResponse = z
  .object({
    access_token: z.string().openapi({ description: 'A signed JWT (RFC 9068), ES256' }),
    token_type: z.literal('Bearer'),
    expires_in: z.number().int().openapi({ example: 900 }),
    scope: z.string().openapi({ example: 'children bookings' }),
    refresh_token: z.string().openapi({ description: 'Opaque; rotated on every use' }),
  })
  .openapi('TokenResponse')

export const OAuthErrorBody = z
  .object({
    error: z.enum([
      'invalid_request',
      'invalid_client',
      'invalid_grant',
      'unauthorized_client',
      'unsupported_grant_type',
      'invalid_scope',
    ]),
    error_description: z.string(),
  })
  .openapi('OAuthError')

export const tokenRouteDoc = {
  method: 'post' as const,
  path: '/oauth/token',
  tags: ['Authentication'],
  summary: 'Exchange client credentials (or a refresh token) for an access token',
  description: `Scopes: ${ALL_SCOPES.join(', ')}.`,
  request: {
    body: {
      required: true,
      content: {
        'application/json': { schema: TokenRequest },
        'application/x-www-form-urlencoded': { schema: TokenRequest },
      },
    },
  },
  responses: {
    200: { description: 'Tokens', content: { 'application/json': { schema: TokenResponse } } },
    400: { description: 'OAuth error', content: { 'application/json': { schema: OAuthErrorBody } } },
    401: { description: 'Client authentication failed', content: { 'application/json': { schema: OAuthErrorBody } } },
  },
}

const TokenActionRequest = z
  .object({
    token: z.string(),
    token_type_hint: z.enum(['access_token', 'refresh_token']).optional(),
    client_id: z.string().optional(),
    client_secret: z.string().optional(),
  })
  .openapi('TokenActionRequest')

const tokenActionBody = {
  required: true,
  content: {
    'application/x-www-form-urlencoded': { schema: TokenActionRequest },
    'application/json': { schema: TokenActionRequest },
  },
}

export const revokeRouteDoc = {
  method: 'post' as const,
  path: '/oauth/revoke',
  tags: ['Authentication'],
  summary: 'Revoke an access or refresh token (RFC 7009)',
  description:
    'Always 200 for an authenticated client, whether or not the token existed. Revoking a refresh token revokes ' +
    'every refresh token of its family; a revoked access token is refused until it expires.',
  request: { body: tokenActionBody },
  responses: {
    200: { description: 'Revoked, or nothing to revoke' },
    400: { description: 'OAuth error', content: { 'application/json': { schema: OAuthErrorBody } } },
    401: { description: 'Client authentication failed', content: { 'application/json': { schema: OAuthErrorBody } } },
  },
}

export const IntrospectionResponse = z
  .object({
    active: z.boolean(),
    token_type: z.enum(['Bearer', 'refresh_token']).optional(),
    scope: z.string().optional(),
    client_id: z.string().optional(),
    tenant_id: z.string().optional(),
    exp: z.number().int().optional(),
    iat: z.number().int().optional(),
    sub: z.string().optional(),
    aud: z.string().optional(),
    iss: z.string().optional(),
    jti: z.string().optional(),
  })
  .openapi('IntrospectionResponse')

export const introspectRouteDoc = {
  method: 'post' as const,
  path: '/oauth/introspect',
  tags: ['Authentication'],
  summary: 'Introspect a token (RFC 7662)',
  description: 'A client may introspect only its own tokens; anything else is `{ "active": false }`.',
  request: { body: tokenActionBody },
  responses: {
    200: { description: 'The token state', content: { 'application/json': { schema: IntrospectionResponse } } },
    400: { description: 'OAuth error', content: { 'application/json': { schema: OAuthErrorBody } } },
    401: { description: 'Client authentication failed', content: { 'application/json': { schema: OAuthErrorBody } } },
  },
}
