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
