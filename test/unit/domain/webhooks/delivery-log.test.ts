/** The delivery log's attempts (delivery-log.ts `attemptsOf`): a successful first attempt kept on the delivery row. */
import { describe, expect, it } from 'vitest'
import { attemptsOf, type DeliveryRow } from '../../../../domain/webhooks/delivery-log.ts'

const at = (s: number) => new Date(Date.UTC(2026, 10, 23, 9, 0, s))

const delivery = (fields: Partial<DeliveryRow>): DeliveryRow => ({
  id: 'whd_1',
  tenantId: 'ten_1',
  eventId: 'evt_1',
  endpointId: 'whe_1',
  eventType: 'child.registered',
  kind: 'EVENT',
  status: 'SUCCEEDED',
  workflowId: null,
  attemptCount: 1,
  lastStatusCode: 204,
  lastError: null,
  nextAttemptAt: null,
  firstAttemptAt: at(1),
  firstAttemptLatencyMs: null,
  createdAt: at(0),
  completedAt: at(2),
  workflowStartedAt: null,
  dispatchLeaseUntil: null,
  attempts: [],
  ...fields,
})

const attemptRow = (number: number, statusCode: number, succeeded: boolean) => ({
  id: `wha_${number}`,
  tenantId: 'ten_1',
  deliveryId: 'whd_1',
  number,
  attemptedAt: at(number),
  statusCode,
  latencyMs: 10 * number,
  error: null,
  succeeded,
})

describe('attemptsOf', () => {
  it('shows a first attempt kept on the delivery row as attempt 1, as its own row would have read', () => {
    expect(attemptsOf(delivery({ firstAttemptLatencyMs: 37 }))).toEqual([
      { number: 1, attemptedAt: at(1), statusCode: 204, latencyMs: 37, error: null, succeeded: true },
    ])
  })

  it('shows attempt rows as they are: failures, later successes, and deliveries recorded before the change', () => {
    const rows = [attemptRow(1, 500, false), attemptRow(2, 200, true)]
    expect(attemptsOf(delivery({ attemptCount: 2, lastStatusCode: 200, attempts: rows }))).toEqual(rows)
    const earlier = [attemptRow(1, 200, true)]
    expect(attemptsOf(delivery({ attempts: earlier }))).toEqual(earlier)
  })

  it('shows nothing for a delivery not attempted yet', () => {
    expect(
      attemptsOf(delivery({ status: 'PENDING', attemptCount: 0, firstAttemptAt: null, lastStatusCode: null }))
    ).toEqual([])
  })
})
