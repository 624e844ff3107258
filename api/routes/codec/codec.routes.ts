/**
 * @module Route table of the Temporal codec server (Temporal's codec server protocol): `POST /codec/encode` and
 * `POST /codec/decode` take and answer `{ payloads: [...] }`, each payload as protobuf JSON (metadata values and data
 * in base64). Operator tooling rather than part of the API's contract, so hidden from /openapi.json and documented
 * in docs/payload-encryption.md.
 */
import { createRoute, z } from '@hono/zod-openapi'
import { PROBLEM_CONTENT_TYPE } from '../../middleware/error-handler.ts'
import { ProblemSchema } from '../../openapi/schemas.ts'

/** Standard or URL-safe base64, as protobuf JSON allows for `bytes`. */
const Base64 = z.string().regex(/^[A-Za-z0-9+/_-]*={0,2}$/, 'Must be base64')

export const JsonPayload = z.object({
  metadata: z.record(z.string(), Base64).nullish(),
  data: Base64.nullish(),
})

export const Payloads = z.object({ payloads: z.array(JsonPayload) })

const problem = (description: string) => ({
  description,
  content: { [PROBLEM_CONTENT_TYPE]: { schema: ProblemSchema } },
})

const codecRoute = (operation: 'encode' | 'decode', summary: string) =>
  createRoute({
    method: 'post',
    path: `/codec/${operation}`,
    hide: true,
    summary,
    request: { body: { required: true, content: { 'application/json': { schema: Payloads } } } },
    responses: {
      200: { description: 'The payloads, in order', content: { 'application/json': { schema: Payloads } } },
      400: problem('Malformed body, or a payload that cannot be decrypted (`validation_error`)'),
      401: problem('No operator credential, or a wrong one (`invalid_token`)'),
    },
  })

export const encodeRoute = codecRoute('encode', 'Encrypt payloads with the current key')
export const decodeRoute = codecRoute('decode', 'Decrypt payloads with the key each names')

/** Where an operator's browser signs in (HTTP Basic) before the Temporal UI decodes with the same credential. */
export const operatorCheckRoute = createRoute({
  method: 'get',
  path: '/codec',
  hide: true,
  summary: 'Check the operator credential',
  responses: {
    200: {
      description: 'The caller is an operator; what the codec does',
      content: {
        'application/json': {
          schema: z.object({
            operator: z.literal(true),
            encryption: z.string().openapi({ example: 'AES-256-GCM' }),
            currentKeyId: z.string().nullable(),
          }),
        },
      },
    },
    401: problem('No operator credential, or a wrong one (`invalid_token`)'),
  },
})
