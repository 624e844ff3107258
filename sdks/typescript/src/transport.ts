/**
 * @module One logical call, as many attempts as the retry policy allows: each attempt has its own timeout, a 401 is
 * retried once after new credentials are obtained, and retryable failures wait as `retry-policy.ts` decides, within
 * the call's attempt and time budget. The caller builds each attempt (`send`) so the same Idempotency-Key, body and
 * fresh Authorization header go out every time.
 */
import type { Random } from './backoff.ts'
import { ApiConnectionError, ApiError, toApiError } from './errors.ts'
import { retryDelay, type AttemptOutcome, type RetryPolicy } from './retry-policy.ts'

/** What the SDK tells an `onRetry` hook before it waits. */
export interface RetryEvent {
  /** "POST /v1/appointments" */
  call: string
  /** The attempt that failed (1 is the first). */
  attempt: number
  /** How long the SDK will wait before the next attempt. */
  delayMs: number
  /** The failure: an {@link ApiError} or the network error. */
  error: unknown
}

/** How calls are carried out; built once per client. */
export interface TransportSettings {
  fetch: typeof fetch
  policy: RetryPolicy
  /** Time limit of one attempt, in milliseconds. */
  timeoutMs: number
  random: Random
  now: () => number
  onRetry?: (event: RetryEvent) => void
}

/** One logical call. */
export interface Exchange {
  /** "POST /v1/appointments", for errors and hooks. */
  call: string
  /** Sends one attempt; called again for every retry. */
  send(signal: AbortSignal): Promise<Response>
  /** Whether repeating the request is safe: a read, or a write that carries an Idempotency-Key. */
  repeatable: boolean
  /** The caller's cancellation. */
  signal?: AbortSignal
  /**
   * Called on the first 401: obtains new credentials and answers whether repeating is worthwhile. Absent for
   * credentials that cannot be renewed (an API key) and for the token endpoint itself.
   */
  renewCredentials?: (rejected: ApiError) => Promise<boolean>
}

/** Waits `ms`, or rejects as soon as `signal` aborts. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    // Rejects with the signal's reason, as fetch does: an AbortError unless the caller aborted with a reason of its own.
    const rejectWithReason = () => {
      const reason: unknown = signal?.reason
      reject(reason)
    }
    if (signal?.aborted) return rejectWithReason()
    const onAbort = () => {
      clearTimeout(timer)
      rejectWithReason()
    }
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort)
      resolve()
    }, ms)
    signal?.addEventListener('abort', onAbort, { once: true })
  })
}

/**
 * Carries out a call: resolves with its 2xx response (body unread), or throws an {@link ApiError} (the last answer)
 * or an {@link ApiConnectionError} (no answer at all).
 */
export async function execute(exchange: Exchange, settings: TransportSettings): Promise<Response> {
  const { policy, now } = settings
  const started = now()
  let renewed = false
  for (let attempt = 1; ; attempt++) {
    exchange.signal?.throwIfAborted()
    const outcome = await attemptOnce(exchange, settings)
    if (outcome.kind === 'ok') return outcome.response
    if (outcome.kind === 'response' && outcome.error.status === 401 && exchange.renewCredentials && !renewed) {
      // Once per call: a token rejected right after renewal means the credentials themselves are refused.
      renewed = true
      if (await exchange.renewCredentials(outcome.error)) {
        attempt -= 1 // a renewal is not a retry: it does not use up the attempt budget
        continue
      }
    }
    const delay =
      attempt < policy.maxAttempts
        ? retryDelay(outcome, attempt, exchange.repeatable, policy, now(), settings.random)
        : undefined
    if (delay === undefined || now() + delay - started > policy.maxElapsedMs)
      throw finalError(exchange, outcome, attempt)
    settings.onRetry?.({ call: exchange.call, attempt, delayMs: delay, error: outcome.error })
    await sleep(delay, exchange.signal)
  }
}

async function attemptOnce(
  exchange: Exchange,
  settings: TransportSettings
): Promise<{ kind: 'ok'; response: Response } | AttemptOutcome> {
  const timeout = AbortSignal.timeout(settings.timeoutMs)
  const signal = exchange.signal ? AbortSignal.any([exchange.signal, timeout]) : timeout
  let response: Response
  try {
    response = await exchange.send(signal)
  } catch (error) {
    // The caller's own cancellation ends the call; so does a failure to obtain credentials (the token request
    // had its own retries). A timeout or a network failure is an outcome like any other.
    if (exchange.signal?.aborted) throw exchange.signal.reason
    if (error instanceof ApiError || error instanceof ApiConnectionError) throw error
    return { kind: 'network', error }
  }
  if (response.ok) return { kind: 'ok', response }
  return { kind: 'response', error: await toApiError(response) }
}

function finalError(exchange: Exchange, outcome: AttemptOutcome, attempts: number): Error {
  if (outcome.kind === 'response') return outcome.error
  const reason =
    outcome.error instanceof Error
      ? outcome.error.cause instanceof Error
        ? outcome.error.cause.message
        : outcome.error.message
      : String(outcome.error)
  return new ApiConnectionError(
    `${exchange.call} got no answer after ${attempts} attempt${attempts === 1 ? '' : 's'}: ${reason}`,
    attempts,
    outcome.error
  )
}
