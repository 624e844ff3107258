/**
 * @module The Temporal codec server (docs/payload-encryption.md): the Temporal UI and CLI send the payloads they
 * display here and show what comes back, so an operator holding the operator credential reads plaintext and
 * everyone else sees ciphertext. Browser calls come from the UI's origin: CORS with credentials for the configured
 * origins only. Answers are never cached: decoded payloads are health data.
 */
import { OpenAPIHono, type z } from '@hono/zod-openapi'
import type { Payload, PayloadCodec } from '@temporalio/common'
import type { Context } from 'hono'
import { cors } from 'hono/cors'
import { validationError, type FieldError } from '../../../domain/errors.ts'
import { codecOperators } from '../../../infra/codec-operators.ts'
import { createPayloadCodec } from '../../../infra/payload-codec.ts'
import type { AppDeps, AppEnv } from '../../app-env.ts'
import { requireOperator } from '../../middleware/require-operator.ts'
import { validationHook } from '../../openapi/validation-hook.ts'
import { decodeRoute, encodeRoute, operatorCheckRoute, type JsonPayload } from './codec.routes.ts'

type JsonPayloadBody = z.infer<typeof JsonPayload>

const NO_STORE = { 'Cache-Control': 'no-store' }

/** With the codec off, Temporal holds plain payloads and encode/decode leave them as they are. */
const identityCodec: PayloadCodec = { encode: async (p) => p, decode: async (p) => p }

const mapValues = <A, B>(record: Record<string, A>, f: (value: A) => B) =>
  Object.fromEntries(Object.entries(record).map(([key, value]) => [key, f(value)]))

const fromJson = ({ metadata, data }: JsonPayloadBody): Payload => ({
  metadata: mapValues(metadata ?? {}, (value) => Buffer.from(value, 'base64')),
  data: Buffer.from(data ?? '', 'base64'),
})

const toJson = ({ metadata, data }: Payload) => ({
  metadata: mapValues(metadata ?? {}, (value) => Buffer.from(value).toString('base64')),
  data: Buffer.from(data ?? []).toString('base64'),
})

/**
 * Runs each payload through the codec on its own, so a payload that cannot be decrypted is named by its index.
 * @throws AppError `validation_error` (400, as the protocol asks) listing every payload that failed
 */
async function applyEach(payloads: Payload[], step: (p: Payload[]) => Promise<Payload[]>): Promise<Payload[]> {
  const outcomes = await Promise.allSettled(payloads.map(async (payload) => (await step([payload]))[0]!))
  const errors: FieldError[] = []
  const results: Payload[] = []
  for (const [index, outcome] of outcomes.entries()) {
    if (outcome.status === 'fulfilled') results.push(outcome.value)
    else {
      const reason: unknown = outcome.reason
      errors.push({
        path: `payloads.${index}`,
        code: 'undecodable',
        message: reason instanceof Error ? reason.message : String(reason),
      })
    }
  }
  if (errors.length > 0) throw validationError(errors, 'Some payloads could not be decoded.')
  return results
}

/**
 * What a codec call concerned, for its audit record, never a payload: the count, the namespace (`X-Namespace`, which
 * the Temporal UI and CLI send) and the workflow when the caller names it (`X-Workflow-Id`, e.g. the CLI's
 * `--codec-header`), as a query string in `resourceId` (docs/audit-trail.md, "Calls outside the versioned API").
 */
function auditedPayloads(count: number, namespace: string | undefined, workflowId: string | undefined) {
  const described = new URLSearchParams({ count: String(count) })
  if (namespace) described.set('namespace', namespace)
  if (workflowId) described.set('workflowId', workflowId)
  return { resourceType: 'payloads', resourceId: described.toString() }
}

export function codecRoutes({ config, logger }: Pick<AppDeps, 'config' | 'logger'>) {
  const keyring = config.TEMPORAL_CODEC_KEYS
  const codec = keyring ? createPayloadCodec(keyring) : identityCodec
  // Counts and ids only, never a payload: who asked (the operator, the request id), what for, how many, for which
  // namespace and, when the caller names it, which workflow; the same on the call's audit record.
  const note = (c: Context<AppEnv>, operation: 'encode' | 'decode', count: number) => {
    const namespace = c.req.header('X-Namespace')?.slice(0, 100)
    const workflowId = c.req.header('X-Workflow-Id')?.slice(0, 255)
    const operator = c.get('auditedAs')?.actorId
    logger.info(
      { requestId: c.get('requestId'), operator, operation, payloads: count, namespace, workflowId },
      'codec request'
    )
    c.set('auditedAs', { ...c.get('auditedAs'), ...auditedPayloads(count, namespace, workflowId) })
  }

  const app = new OpenAPIHono<AppEnv>({ defaultHook: validationHook })
  app.use(
    '/codec/*',
    cors({
      origin: config.CODEC_CORS_ORIGINS,
      allowMethods: ['GET', 'POST', 'OPTIONS'],
      // What the Temporal UI sends: the namespace, its access token when it has one, and JSON; and the workflow a
      // script may name for the audit record.
      allowHeaders: ['Authorization', 'Content-Type', 'X-Namespace', 'X-Workflow-Id'],
      credentials: true,
      maxAge: 600,
    }),
    requireOperator(codecOperators(config))
  )
  return app
    .openapi(operatorCheckRoute, (c) => {
      const status = { encryption: keyring ? 'AES-256-GCM' : 'off', currentKeyId: keyring?.currentKeyId ?? null }
      return c.json({ operator: true as const, ...status }, 200, NO_STORE)
    })
    .openapi(encodeRoute, async (c) => {
      const { payloads } = c.req.valid('json')
      note(c, 'encode', payloads.length)
      const encoded = await applyEach(payloads.map(fromJson), (p) => codec.encode(p))
      return c.json({ payloads: encoded.map(toJson) }, 200, NO_STORE)
    })
    .openapi(decodeRoute, async (c) => {
      const { payloads } = c.req.valid('json')
      note(c, 'decode', payloads.length)
      const decoded = await applyEach(payloads.map(fromJson), (p) => codec.decode(p))
      return c.json({ payloads: decoded.map(toJson) }, 200, NO_STORE)
    })
}
