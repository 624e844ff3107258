/** The circuit breaker's arithmetic over a batch of attempts (delivery-queue.ts `endpointHealth`). */
import { describe, expect, it } from 'vitest'
import type { AttemptRecord } from '../../../../domain/webhooks/attempt-record.ts'
import { endpointHealth } from '../../../../domain/webhooks/endpoint-health.ts'

const at = (s: number) => new Date(Date.UTC(2026, 10, 23, 9, 0, s))
const record = (endpointId: string, succeeded: boolean, second: number, attempted = true): AttemptRecord => ({
  deliveryId: `whd_${endpointId}_${second}`,
  tenantId: 'ten_1',
  endpointId,
  number: 1,
  attempted,
  attemptedAt: at(second),
  firstAttemptAt: at(second),
  statusCode: succeeded ? 200 : 500,
  latencyMs: 5,
  error: null,
  succeeded,
  status: succeeded ? 'SUCCEEDED' : 'PENDING',
  nextAttemptAt: null,
  lastError: null,
  gone: false,
})

describe('endpointHealth', () => {
  it('adds failures to the run when the batch has no success', () => {
    expect(endpointHealth([record('a', false, 1), record('a', false, 2)])).toEqual([
      { endpointId: 'a', reset: false, failures: 2, failedAt: at(1) },
    ])
  })

  it('restarts the run at the last success: only the failures after it count, from the first of them', () => {
    const batch = [record('a', false, 1), record('a', true, 2), record('a', false, 3), record('a', false, 4)]
    expect(endpointHealth(batch)).toEqual([{ endpointId: 'a', reset: true, failures: 2, failedAt: at(3) }])
  })

  it('ends the run when the last attempt succeeded', () => {
    expect(endpointHealth([record('a', false, 1), record('a', true, 2)])).toEqual([
      { endpointId: 'a', reset: true, failures: 0, failedAt: null },
    ])
  })

  it('keeps endpoints apart and ignores deliveries ended without an attempt', () => {
    const batch = [record('a', false, 1), record('b', true, 2), record('c', false, 3, false)]
    expect(endpointHealth(batch)).toEqual([
      { endpointId: 'a', reset: false, failures: 1, failedAt: at(1) },
      { endpointId: 'b', reset: true, failures: 0, failedAt: null },
    ])
  })
})
