/**
 * The settlement activities' error classification and idempotent steps, and how the workflow turns what they throw
 * into the reason a FAILED run shows. The database is a fake of the one `settlement` row the steps touch
 * (fake-unit-of-work.ts); the ledger writes of settling a provider are the integration suite's.
 */
import { ActivityFailure, ApplicationFailure, RetryState } from '@temporalio/common'
import { describe, expect, it, vi } from 'vitest'
import { createSettlementActivities } from '../../../activities/settlement-activities.ts'
import { SETTLEMENT_GAVE_UP, settlementFailureReason } from '../../../common/settlements/settlement-contract.ts'
import { fakeDb } from './fake-unit-of-work.ts'

vi.mock('../../../infra/unit-of-work.ts', () => import('./fake-unit-of-work.ts'))

const NOW = new Date('2026-11-30T12:00:00Z')
const input = { tenantId: 'ten_1', settlementId: 'stl_1' }

type Row = Record<string, unknown> & { status: string }

/** A fake `tx.settlement` over at most one row; `fault` makes every call fail as the driver would. */
function settlements(row: Row | null, fault?: Error) {
  const updates: Array<Record<string, unknown>> = []
  const tx = {
    settlement: {
      async findFirst({ where }: { where: { id: string; tenantId: string } }) {
        if (fault) throw fault
        return row && where.id === row.id && where.tenantId === 'ten_1' ? row : null
      },
      async update({ data }: { data: Record<string, unknown> }) {
        updates.push(data)
        Object.assign(row!, data)
        return row
      },
      async updateMany({ where, data }: { where: { status: { in: string[] } }; data: Record<string, unknown> }) {
        if (fault) throw fault
        if (!row || !where.status.in.includes(row.status)) return { count: 0 }
        updates.push(data)
        Object.assign(row, data)
        return { count: 1 }
      },
    },
  }
  return { db: fakeDb(tx), updates }
}

const run = (status: string, extra: Record<string, unknown> = {}): Row => ({
  id: 'stl_1',
  status,
  startedAt: null,
  providerIds: ['prv_a', 'prv_b'],
  currency: 'EUR',
  ...extra,
})

/** What the workflow catches when an activity throws `error` for the last time. */
const asActivityFailure = (error: Error) =>
  new ActivityFailure('Activity task failed', 'beginSettlement', '1', RetryState.NON_RETRYABLE_FAILURE, 'worker', error)

describe('settlement activities', () => {
  it('refuses a run that does not exist as a non-retryable failure, whose message becomes the recorded reason', async () => {
    const { db } = settlements(null)
    const { beginSettlement } = createSettlementActivities({ db, clock: () => NOW })
    const error = await beginSettlement(input).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(ApplicationFailure)
    expect((error as ApplicationFailure).nonRetryable).toBe(true)
    expect((error as ApplicationFailure).message).toBe('No settlement with id "stl_1".')
    expect(settlementFailureReason(asActivityFailure(error as ApplicationFailure))).toBe(
      'No settlement with id "stl_1".'
    )
  })

  it('lets an unreachable database throw as it is, so Temporal retries it; the run then records the generic reason', async () => {
    const down = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' })
    const { db } = settlements(run('PENDING'), down)
    const { beginSettlement } = createSettlementActivities({ db, clock: () => NOW })
    const error = await beginSettlement(input).catch((e: unknown) => e)
    expect(error).toBe(down)
    const retriesRanOut = new ActivityFailure(
      'Activity task failed',
      'beginSettlement',
      '1',
      RetryState.MAXIMUM_ATTEMPTS_REACHED,
      'worker',
      ApplicationFailure.retryable(down.message, 'Error')
    )
    expect(settlementFailureReason(retriesRanOut)).toBe(SETTLEMENT_GAVE_UP)
  })

  it('begins a pending run (RUNNING, started now) and lists its providers; a restarted run keeps its first start', async () => {
    const pending = settlements(run('PENDING'))
    expect(await createSettlementActivities({ db: pending.db, clock: () => NOW }).beginSettlement(input)).toEqual([
      'prv_a',
      'prv_b',
    ])
    expect(pending.updates).toEqual([{ status: 'RUNNING', startedAt: NOW }])

    const firstStart = new Date('2026-11-29T08:00:00Z')
    const restarted = settlements(run('PENDING', { startedAt: firstStart }))
    await createSettlementActivities({ db: restarted.db, clock: () => NOW }).beginSettlement(input)
    expect(restarted.updates).toEqual([{ status: 'RUNNING', startedAt: firstStart }])
  })

  it('begins a completed run as a no-op with nobody to settle, and a running one without writing', async () => {
    const completed = settlements(run('COMPLETED'))
    expect(await createSettlementActivities({ db: completed.db, clock: () => NOW }).beginSettlement(input)).toEqual([])
    expect(completed.updates).toEqual([])

    const running = settlements(run('RUNNING'))
    expect(await createSettlementActivities({ db: running.db, clock: () => NOW }).beginSettlement(input)).toEqual([
      'prv_a',
      'prv_b',
    ])
    expect(running.updates).toEqual([])
  })

  it('never marks a completed run FAILED, and keeps a failure reason within 500 characters', async () => {
    const completed = settlements(run('COMPLETED'))
    await createSettlementActivities({ db: completed.db, clock: () => NOW }).failSettlement({
      ...input,
      reason: 'late',
    })
    expect(completed.updates).toEqual([])

    const running = settlements(run('RUNNING'))
    await createSettlementActivities({ db: running.db, clock: () => NOW }).failSettlement({
      ...input,
      reason: 'x'.repeat(600),
    })
    expect(running.updates).toEqual([{ status: 'FAILED', failedAt: NOW, failureReason: 'x'.repeat(500) }])
  })
})
