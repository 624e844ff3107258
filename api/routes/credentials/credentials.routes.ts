/** @module Route table of /v1/credentials: what a grantor has granted (docs/security.md, "Credentials and their
 * grantors"). */
import { z } from '@hono/zod-openapi'
import { OPERATOR_GRANTOR } from '../../../domain/auth/api-key-service.ts'
import { MAX_PER_TYPE } from '../../../domain/auth/credentials-by-grantor.ts'
import { idPattern } from '../../../domain/id-schema.ts'
import { COMMON_ERRORS, problemResponses, protectedRoute } from '../../openapi/routes.ts'
import { UtcDateTime } from '../../openapi/schemas.ts'

const GRANTOR_KINDS = ['apiClient', 'platformUser', 'apiKey'] as const

export const CredentialsQuery = z.object({
  grantedBy: z
    .string()
    .min(1)
    .max(100)
    .refine(
      (id) => id === OPERATOR_GRANTOR || GRANTOR_KINDS.some((kind) => idPattern(kind).test(id)),
      'A client, user or API key id, or operator.'
    )
    .openapi({
      param: { name: 'grantedBy', in: 'query' },
      description: 'An OAuth client (`cli_…`), platform user (`usr_…`) or API key (`ak_…`) id, or `operator`',
      example: 'usr_01a21b2a37887c5aa50ef8e5dfef4579',
    }),
})

export const GrantedCredential = z
  .object({
    type: z.enum(['api_key', 'webhook_endpoint', 'agent_workflow']),
    id: z.string(),
    name: z.string().openapi({ description: "A key's or agent workflow's name; an endpoint's URL" }),
    grantedBy: z.string().openapi({ description: 'Its own grantor: the one asked about, or a key made under it' }),
    createdAt: UtcDateTime,
    active: z.boolean().openapi({
      description:
        'Whether it acts now: a key works (neither it nor a key above it revoked or expired, its root grantor still ' +
        'granting it); an endpoint or agent workflow is enabled and its grantor still grants it `webhooks` or `agents`',
    }),
  })
  .openapi('GrantedCredential')

export const GrantedCredentials = z
  .object({
    data: z.array(GrantedCredential),
    truncated: z
      .boolean()
      .openapi({ description: `More than ${MAX_PER_TYPE} of one type: only the oldest are listed` }),
  })
  .openapi('GrantedCredentials')

export const listCredentialsRoute = protectedRoute('users.read', {
  method: 'get',
  path: '/v1/credentials',
  tags: ['Users'],
  summary: 'List what a grantor has granted',
  description:
    'Everything that acts on the grant of one client, user or API key, and stops with it: the API keys it made and ' +
    'the keys those made (8 deep at most), and the webhook endpoints and agent workflows any of them made or last ' +
    'took over. Revoking a client, disabling or demoting a user, or revoking or letting expire a key ends what it ' +
    'granted at once, on every instance; an endpoint or agent workflow is taken over by someone who holds its scope ' +
    '(PATCH an endpoint with `enabled: true`; update an agent workflow). Keys first, then endpoints, then agent ' +
    `workflows, each oldest first; at most ${MAX_PER_TYPE} of each.`,
  request: { query: CredentialsQuery },
  responses: {
    200: {
      description: 'The credentials granted',
      content: { 'application/json': { schema: GrantedCredentials } },
    },
    ...problemResponses(400, ...COMMON_ERRORS),
  },
})
