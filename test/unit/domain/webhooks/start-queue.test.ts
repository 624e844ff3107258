import { describe, expect, it } from 'vitest'
import { createStarter } from '../../../../domain/webhooks/start-queue.ts'
import { createLogger } from '../../../../infra/logger.ts'

const logger = createLogger('silent', 'test')
const rows = (n: number, prefix = 'r') => Array.from({ length: n }, (_, i) => ({ id: `${prefix}${i}` }))

describe('createStarter', () => {
  it('keeps at most `concurrency` starts in flight and marks outcomes in batches', async () => {
    let inFlight = 0
    let peak = 0
    const marks: Array<{ started: string[]; failed: string[] }> = []
    const starter = createStarter(
      3,
      async (row: { id: string }) => {
        inFlight++
        peak = Math.max(peak, inFlight)
        await new Promise((resolve) => setTimeout(resolve, 5))
        inFlight--
        if (row.id === 'r7') throw new Error('Temporal unreachable')
      },
      async (started, failed) => void marks.push({ started, failed }),
      logger
    )
    const started = await starter.start(rows(10))
    expect(started).toBe(9)
    expect(peak).toBe(3)
    expect(marks.flatMap((m) => m.started).sort()).toEqual(
      rows(10)
        .map((r) => r.id)
        .filter((id) => id !== 'r7')
        .sort()
    )
    expect(marks.flatMap((m) => m.failed)).toEqual(['r7'])
    // Batched: far fewer mark calls than rows.
    expect(marks.length).toBeLessThan(10)
  })

  it('resolves a caller only once its rows are marked, and idle once everything is', async () => {
    const marked = new Set<string>()
    const starter = createStarter(
      2,
      async () => undefined,
      async (started) => {
        await new Promise((resolve) => setTimeout(resolve, 10))
        for (const id of started) marked.add(id)
      },
      logger
    )
    const first = starter.start(rows(3, 'a'))
    const second = starter.start(rows(2, 'b'))
    expect(await first).toBe(3)
    for (const id of ['a0', 'a1', 'a2']) expect(marked.has(id)).toBe(true)
    await starter.idle()
    expect(await second).toBe(2)
    expect(marked.size).toBe(5)
  })
})
