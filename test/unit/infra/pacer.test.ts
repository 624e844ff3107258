import { describe, expect, it } from 'vitest'
import { AppError, rateLimited } from '../../../domain/errors.ts'
import { createPacer, memoryTurns } from '../../../infra/pacer.ts'

/** A pacer on a fake clock: `sleep` moves the clock, and records how long each call waited. */
function pacedOn(options: { perSecond: number; burst: number; maxWaitMs: number }) {
  let clock = 1_000_000
  const waits: number[] = []
  const pacer = createPacer({
    ...options,
    what: "A tenant's workflow views",
    refuse: rateLimited,
    turns: memoryTurns(() => clock),
    sleep: async (ms) => void waits.push(ms),
  })
  return {
    pacer,
    waits,
    advance: (ms: number) => void (clock += ms),
  }
}

describe('pacer', () => {
  it('lets a burst through at once, then spaces the calls at the rate', async () => {
    const { pacer, waits } = pacedOn({ perSecond: 10, burst: 3, maxWaitMs: 10_000 })
    for (let i = 0; i < 6; i++) await pacer.take('tenant-a')
    // Three at once, then one every 100 ms, each waiting from the same instant.
    expect(waits).toEqual([100, 200, 300])
  })

  it('paces each key on its own', async () => {
    const { pacer, waits } = pacedOn({ perSecond: 10, burst: 1, maxWaitMs: 10_000 })
    await pacer.take('tenant-a')
    await pacer.take('tenant-b')
    await pacer.take('tenant-a')
    expect(waits).toEqual([100])
  })

  it('gives the burst back after idle time', async () => {
    const { pacer, waits, advance } = pacedOn({ perSecond: 10, burst: 2, maxWaitMs: 10_000 })
    await pacer.take('tenant-a')
    await pacer.take('tenant-a')
    advance(1000)
    await pacer.take('tenant-a')
    await pacer.take('tenant-a')
    expect(waits).toEqual([])
  })

  it('refuses a call whose turn is further than the longest wait, and keeps its place for others', async () => {
    const { pacer, waits } = pacedOn({ perSecond: 10, burst: 1, maxWaitMs: 250 })
    await pacer.take('tenant-a')
    await pacer.take('tenant-a')
    await pacer.take('tenant-a')
    const refused = await pacer.take('tenant-a').catch((error: unknown) => error)
    expect(refused).toBeInstanceOf(AppError)
    expect(refused).toMatchObject({ status: 429, code: 'rate_limited' })
    expect((refused as AppError).headers).toEqual({ 'Retry-After': '1' })
    expect((refused as AppError).message).toMatch(/^A tenant's workflow views are paced to 10 a second/)
    // The refused call took no turn: the next one waits as long as it would have.
    expect(waits).toEqual([100, 200])
  })

  it('paces nothing at a rate of 0', async () => {
    const { pacer, waits } = pacedOn({ perSecond: 0, burst: 1, maxWaitMs: 0 })
    for (let i = 0; i < 100; i++) await pacer.take('tenant-a')
    expect(waits).toEqual([])
  })
})
