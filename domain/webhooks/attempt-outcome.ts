/**
 * @module What one attempt's response means for its delivery (docs/conventions.md "Webhooks"): any 2xx succeeds; 410
 * Gone ends the delivery and disables the endpoint; anything else (3xx included: redirects are not followed, 4xx,
 * 5xx, timeouts, refused connections, forbidden addresses) is retried within the window, honouring Retry-After.
 */
import type { PostResult } from './post-webhook.ts'
import { nextRetryDelayMs, type RetryPolicy } from '../../common/webhooks/retry-schedule.ts'

export type AttemptOutcome =
  { kind: 'SUCCEEDED' } | { kind: 'GONE' } | { kind: 'RETRY'; retryInMs: number } | { kind: 'EXHAUSTED' }

export interface OutcomeInput {
  result: PostResult
  /** This attempt's number (1 for the first). */
  attempt: number
  firstAttemptAt: number
  now: number
  policy: RetryPolicy
  random: number
}

export const isSuccess = (statusCode: number | undefined) =>
  statusCode !== undefined && statusCode >= 200 && statusCode < 300

/** Decides the delivery's next step after an attempt. */
export function attemptOutcome({ result, attempt, firstAttemptAt, now, policy, random }: OutcomeInput): AttemptOutcome {
  if (isSuccess(result.statusCode)) return { kind: 'SUCCEEDED' }
  if (result.statusCode === 410) return { kind: 'GONE' }
  const retryInMs = nextRetryDelayMs({
    failures: attempt,
    policy,
    firstAttemptAt,
    now,
    retryAfterMs: result.retryAfterMs,
    random,
  })
  return retryInMs === undefined ? { kind: 'EXHAUSTED' } : { kind: 'RETRY', retryInMs }
}
