/**
 * @module Idempotency-Key on every write (docs/conventions.md). The key's record is inserted inside the request's
 * transaction, so PostgreSQL itself arbitrates races: a concurrent duplicate blocks on the unique index until the
 * first request commits (then it replays the stored response) or rolls back (then it runs). A duplicate that would
 * wait longer than the configured time gets 409 `idempotency_request_in_progress`.
 *
 * A request that calls Temporal or another peer commits its transaction first (UnitOfWork.release), its claim with
 * it: the claim then holds the key for a lease, duplicates wait for it by looking again every few milliseconds
 * rather than on the lock, the stored response is written in the request's last transaction, and a 5xx deletes the
 * claim (the rest rolled back) so that a retry runs.
 */
import { createHash } from 'node:crypto'
import type { MiddlewareHandler } from 'hono'
import type { ErrorCode } from '../../domain/error-catalogue.ts'
import {
  AppError,
  idempotencyInProgress,
  idempotencyKeyReused,
  idempotencyReplayWithheld,
  validationError,
} from '../../domain/errors.ts'
import { newId } from '../../domain/ids.ts'
import type { Clock } from '../../infra/clock.ts'
import { isSealed, type ResponseSealer } from '../../infra/response-sealer.ts'
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
const NOT_STORED_CODES = new Set<ErrorCode>([
  'validation_error',
  'invalid_json',
  'invalid_token',
  'insufficient_scope',
  'forbidden',
  'payload_too_large',
  'unsupported_media_type',
  'rate_limited',
])

/**
 * How long the claim of a request that released its transaction holds the key: longer than such a request can last
 * (a transaction of 30 s, a network call of 10 s, waits for connections of 10 s each), short enough that a crash
 * leaves the key usable again soon.
 */
const CLAIM_LEASE_MS = 2 * 60 * 1000
/** How often a duplicate looks at a claim committed IN_PROGRESS while it waits for it. */
const IN_PROGRESS_POLL_MS = 50

/** What is stored instead of an answer that carries a secret when no key can seal it: a replay answers 409. */
const WITHHELD = 'withheld:v1'

/**
 * The answer's body as stored. An answer that carries a secret (`sealStoredResponse`) is sealed, or, with no sealing
 * key configured, not kept at all: a secret shown once is never in the database in clear for a day.
 */
async function storedBody(response: Response, carriesSecret: boolean, sealer: ResponseSealer | undefined) {
  if (carriesSecret && !sealer) return WITHHELD
  const text = await response.clone().text()
  return carriesSecret && sealer ? sealer.seal(text) : text
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms))

const isLockTimeout = (error: unknown) =>
  /55P03|lock timeout|lock_not_available/i.test(String(error) + JSON.stringify(error))

export interface IdempotencyOptions {
  clock: Clock
  /** Seals the stored answers of requests that ask for it (`sealStoredResponse`): they carry a secret. */
  sealer?: ResponseSealer
  /** Told of each replayed answer (metrics). */
  onReplay?: () => void
  /** How long a duplicate waits for the first request before 409. */
  waitMs: number
}

export const idempotency = ({ clock, waitMs, onReplay, sealer }: IdempotencyOptions): MiddlewareHandler<AppEnv> =>
  async function idempotency(c, next) {
    const key = c.req.header('Idempotency-Key')
    if (!WRITE_METHODS.has(c.req.method) || key === undefined) return next()
    if (key.length === 0 || key.length > MAX_KEY_LENGTH) {
      throw validationError([
        { path: 'Idempotency-Key', code: 'invalid_length', message: `Use 1 to ${MAX_KEY_LENGTH} characters.` },
      ])
    }
    const uow = c.get('uow')
    const { tx, tenantId } = uow
    const principal = c.get('principal').actorId
    // The raw bytes, not text(): a file upload is binary, and once read as text it could only be re-read as text
    // (Hono caches the first form it reads), corrupting the file. For UTF-8 bodies the hash is the same as before.
    const body = new Uint8Array(await c.req.arrayBuffer())
    const requestHash = createHash('sha256').update(`${c.req.method} ${c.req.path}\n`).update(body).digest('hex')
    const now = clock()
    // Names what this request asks of a peer (a workflow update), so that its retries ask the same thing once.
    uow.operationKey = createHash('sha256').update(`${principal}\n${key}\n${requestHash}`).digest('hex').slice(0, 32)

    const claim = async (): Promise<string | undefined> => {
      try {
        await tx.$executeRaw`SELECT set_config('lock_timeout', ${`${waitMs}ms`}, true)`
        // A live record wins; an expired one (older than 24 hours, or the claim of a request that released its
        // transaction and never finished, after its lease) is taken over as if the key were new.
        const claimed = await tx.$queryRaw<Array<{ id: string }>>`
          INSERT INTO idempotency_records
            (id, tenant_id, principal, key, method, route, request_hash, state, created_at, expires_at)
          VALUES (${newId('idempotency')}, ${tenantId}, ${principal}, ${key}, ${c.req.method}, ${c.req.path},
            ${requestHash}, 'IN_PROGRESS', ${now}, ${new Date(now.getTime() + KEY_TTL_MS)})
          ON CONFLICT (tenant_id, principal, key) DO UPDATE SET
            method = EXCLUDED.method, route = EXCLUDED.route, request_hash = EXCLUDED.request_hash,
            state = 'IN_PROGRESS', response_status = NULL, response_headers = NULL, response_body = NULL,
            created_at = EXCLUDED.created_at, expires_at = EXCLUDED.expires_at
          WHERE idempotency_records.expires_at <= ${clock()}
          RETURNING id`
        await tx.$executeRaw`SELECT set_config('lock_timeout', '0', true)`
        return claimed[0]?.id
      } catch (error) {
        if (isLockTimeout(error)) throw idempotencyInProgress()
        throw error
      }
    }

    // A first request that calls out (UnitOfWork.release) has committed its claim IN_PROGRESS: a duplicate finds it
    // instead of blocking on it, so it waits here as it would have on the lock, between short reads, holding no
    // transaction while it waits.
    const giveUpAt = Date.now() + waitMs
    let recordId = await claim()
    while (!recordId) {
      const stored = await tx.idempotencyRecord.findUnique({
        where: { tenantId_principal_key: { tenantId, principal, key } },
      })
      if (!stored) {
        recordId = await claim()
        continue
      }
      if (stored.requestHash !== requestHash) throw idempotencyKeyReused()
      if (stored.state === 'COMPLETED' && stored.responseStatus !== null) {
        const headers = { ...(stored.responseHeaders as Record<string, string>), 'Idempotent-Replayed': 'true' }
        onReplay?.()
        const body = stored.responseBody ?? ''
        if (body === WITHHELD) throw idempotencyReplayWithheld()
        if (isSealed(body) && !sealer) throw new Error('A stored answer is sealed and no sealing key is configured')
        return c.body(sealer ? sealer.open(body) : body, stored.responseStatus as 200, headers)
      }
      if (Date.now() >= giveUpAt) throw idempotencyInProgress()
      await uow.release(() => sleep(IN_PROGRESS_POLL_MS))
      recordId = await claim()
    }
    const claimedId = recordId

    // The claim was to commit with the whole request. A handler that calls out commits it early: it then holds the
    // key for a lease only (a crash must not hold it for 24 hours), and a 5xx that rolls the rest back deletes it.
    uow.beforeRelease(async () => {
      await tx.idempotencyRecord.update({
        where: { id: claimedId },
        data: { expiresAt: new Date(clock().getTime() + CLAIM_LEASE_MS) },
      })
      uow.compensate(async (later) => {
        await later.tx.idempotencyRecord.deleteMany({ where: { id: claimedId, state: 'IN_PROGRESS' } })
      })
    })

    await next()

    const status = c.res.status
    const code = c.error instanceof AppError ? c.error.code : undefined
    // 5xx: the unit of work rolls everything back, this record included, which releases the key.
    if (status >= 500) return
    if (code && NOT_STORED_CODES.has(code)) {
      await tx.idempotencyRecord.delete({ where: { id: claimedId } })
      return
    }
    const headers: Record<string, string> = {}
    for (const name of STORED_HEADERS) {
      const value = c.res.headers.get(name)
      if (value !== null) headers[name] = value
    }
    await tx.idempotencyRecord.update({
      where: { id: claimedId },
      data: {
        state: 'COMPLETED',
        // Its 24 hours again, should a release have shortened them to the lease.
        expiresAt: new Date(now.getTime() + KEY_TTL_MS),
        responseStatus: status,
        responseHeaders: headers,
        responseBody: await storedBody(c.res, c.get('sealStoredResponse') === true, sealer),
      },
    })
  }
