import { describe, expect, it } from 'vitest'
import { batchAfterCommit } from '../../../../domain/appointments/after-commit-batch.ts'
import type { UnitOfWork } from '../../../../infra/unit-of-work.ts'

/** A unit of work whose after-commit tasks are kept for the test to run, as runInUnitOfWork does after commit. */
function fakeUnit() {
  const registered: Array<() => Promise<void>> = []
  const uow = {
    tx: {} as UnitOfWork['tx'],
    tenantId: 'ten_1',
    afterCommit: (task: () => Promise<void>) => registered.push(task),
    execute: async () => 0,
    query: async () => [],
    release: <T>(call: () => Promise<T>) => call(),
    beforeRelease: () => undefined,
    savepoint: async () => undefined,
    compensate: () => undefined,
    commitWith: () => undefined,
  }
  return { uow: uow as UnitOfWork, registered }
}

describe('batchAfterCommit', () => {
  it('collects tasks and registers them as one after-commit step only when flushed', async () => {
    const { uow, registered } = fakeUnit()
    const batch = batchAfterCommit(uow)
    const ran: number[] = []
    for (const i of [1, 2, 3]) batch.uow.afterCommit(async () => void ran.push(i))
    expect(registered).toHaveLength(0)
    batch.flush()
    expect(registered).toHaveLength(1)
    expect(ran).toEqual([])
    await registered[0]!()
    expect(ran.sort()).toEqual([1, 2, 3])
  })

  it('runs the tasks concurrently, and one failure does not stop the others', async () => {
    const { uow, registered } = fakeUnit()
    const batch = batchAfterCommit(uow)
    let active = 0
    let peak = 0
    let done = 0
    for (let i = 0; i < 10; i++) {
      batch.uow.afterCommit(async () => {
        active++
        peak = Math.max(peak, active)
        await new Promise((resolve) => setTimeout(resolve, 20))
        active--
        if (i === 3) throw new Error('Temporal unreachable')
        done++
      })
    }
    batch.flush()
    await registered[0]!()
    expect(done).toBe(9)
    // All ten were in flight at once (one after the other, the peak would be 1).
    expect(peak).toBe(10)
  })

  it('registers nothing when no task was collected', () => {
    const { uow, registered } = fakeUnit()
    batchAfterCommit(uow).flush()
    expect(registered).toHaveLength(0)
  })
})
