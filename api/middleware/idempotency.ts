/**
 * @module Idempotency-Key on every write (CONVENTIONS.md). The key's record is inserted inside the request's
 * transaction, so PostgreSQL itself arbitrates races: a concurrent duplicate blocks on the unique index until the
 * first request commits (then it replays the stored response) or rolls back (then it runs). A duplicate that would
 * wait longer than the configured time gets 409 `idempotency_request_in_progress`.
 */
import { createHash } from 'node:crypto'
import type { MiddlewareHandler } from 'hono'
import { AppError, idempotencyInProgress, idempotencyKeyReused, validationError } from '../../domain/errors.ts'
import { newId } from '../../domain/ids.ts'
import type { Clock } from '../../infra/clock.ts'
import type { AppEnv } from '../app-env.ts'

const WRITE_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE'])
const KEY_TTL_MS = 24 * 3600 * 1000
const MAX_KEY_LENGTH = 255
/** Headers worth replaying; per-request ones (request id, rate limits) are the current request's. */
const STORED_HEADERS = ['content-type', 'location', 'deprecation', 'sunset', 'link']
/**
 * Rejections that happen before the operation runs (bad input, auth) are not stored, so the client can fix the
 * request and retry with the same key, as Stripe does.
 */
const NOT_STORED_CODES = new Set([
  'validation_error',
  'invalid_json',
  'invalid_token',
  'insufficient_scope',
  'forbidden',
  'payload_too_large',
  'unsupported_media_type',
  'rate_limited',
])

const isLockTimeout = (error: unknown) =>
  /55P03|lock timeout|lock_not_available/i.test(String(error) + JSON.stringify(error))

export interface IdempotencyOptions {
  clock: Clock
  /** How long a duplicate waits for the first request before 409. */
  waitMs: number
}

export const idempotency = ({ clock, waitMs }: IdempotencyOptions): MiddlewareHandler<AppEnv> =>
  async function idempotency(c, next) {
    const key = c.req.header('Idempotency-Key')
    if (!WRITE_METHODS.has(c.req.method) || key === undefined) return next()
    if (key.length === 0 || key.length > MAX_KEY_LENGTH) {
      throw validationError([
        { path: 'Idempotency-Key', code: 'invalid_length', message: `Use 1 to ${MAX_KEY_LENGTH} characters.` },
      ])
    }
    const { tx, tenantId } = c.get('uow')
    const principal = c.get('principal').actorId
    // The raw bytes, not text(): a file upload is binary, and once read as text it could only be re-read as text
    // (Hono caches the first form it reads), corrupting the file. For UTF-8 bodies the hash is the same as before.
    const body = new Uint8Array(await c.req.arrayBuffer())
    const requestHash = createHash('sha256').update(`${c.req.method} ${c.req.path}\n`).update(body).digest('hex')
    const now = clock()

    let claimed: Array<{ id: string }>
    try {
      await tx.$executeRaw`SELECT set_config('lock_timeout', ${`${waitMs}ms`}, true)`
      // A live record wins; an expired one (older than 24 hours) is taken over as if the key were new.
      claimed = await tx.$queryRaw<Array<{ id: string }>>`
        INSERT INTO idempotency_records
          (id, tenant_id, principal, key, method, route, request_hash, state, created_at, expires_at)
        VALUES (${newId('idempotency')}, ${tenantId}, ${principal}, ${key}, ${c.req.method}, ${c.req.path},
          ${requestHash}, 'IN_PROGRESS', ${now}, ${new Date(now.getTime() + KEY_TTL_MS)})
        ON CONFLICT (tenant_id, principal, key) DO UPDATE SET
          method = EXCLUDED.method, route = EXCLUDED.route, request_hash = EXCLUDED.request_hash,
          state = 'IN_PROGRESS', response_status = NULL, response_headers = NULL, response_body = NULL,
          created_at = EXCLUDED.created_at, expires_at = EXCLUDED.expires_at
        WHERE idempotency_records.expires_at <= ${now}
        RETURNING id`
      await tx.$executeRaw`SELECT set_config('lock_timeout', '0', true)`
    } catch (error) {
      if (isLockTimeout(error)) throw idempotencyInProgress()
      throw error
    }

    const recordId = claimed[0]?.id
    if (!recordId) {
      const stored = await tx.idempotencyRecord.findUniqueOrThrow({
        where: { tenantId_principal_key: { tenantId, principal, key } },
      })
      if (stored.requestHash !== requestHash) throw idempotencyKeyReused()
      if (stored.state !== 'COMPLETED' || stored.responseStatus === null) throw idempotencyInProgress()
      const headers = { ...(stored.responseHeaders as Record<string, string>), 'Idempotent-Replayed': 'true' }
      return c.body(stored.responseBody ?? '', stored.responseStatus as 200, headers)
    }

    await next()

    const status = c.res.status
    const code = c.error instanceof AppError ? c.error.code : undefined
    // 5xx: the unit of work rolls everything back, this record included, which releases the key.
    if (status >= 500) return
    if (code && NOT_STORED_CODES.has(code)) {
      await tx.idempotencyRecord.delete({ where: { id: recordId } })
      return
    }
    const headers: Record<string, string> = {}
    for (const name of STORED_HEADERS) {
      const value = c.res.headers.get(name)
      if (value !== null) headers[name] = value
    }
    await tx.idempotencyRecord.update({
      where: { id: recordId },
      data: {
        state: 'COMPLETED',
        responseStatus: status,
        responseHeaders: headers,
        responseBody: await c.res.clone().text(),
      },
    })
  }
