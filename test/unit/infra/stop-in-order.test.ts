/** Stopping a process's parts in order, naming the one a stop waits on (infra/stop-in-order.ts). */
import { describe, expect, it } from 'vitest'
import type { Logger } from '../../../infra/logger.ts'
import { stopInOrder } from '../../../infra/stop-in-order.ts'

function recordingLogger() {
  const lines: Array<{ level: string; fields: Record<string, unknown>; msg: string }> = []
  const at = (level: string) => (fields: Record<string, unknown>, msg: string) =>
    void lines.push({ level, fields, msg })
  return { lines, logger: { info: at('info'), warn: at('warn') } as unknown as Logger }
}

describe('stopInOrder', () => {
  it('Should stop each step after the previous one, name a slow step while it runs, and log what each took', async () => {
    const { lines, logger } = recordingLogger()
    const order: string[] = []
    await stopInOrder(
      [
        { name: 'first', stop: () => void order.push('first') },
        {
          name: 'slow',
          stop: () => new Promise<void>((resolve) => setTimeout(() => resolve(void order.push('slow')), 120)),
        },
        { name: 'last', stop: async () => void order.push('last') },
      ],
      logger,
      50
    )
    expect(order).toEqual(['first', 'slow', 'last'])
    expect(lines.filter((l) => l.level === 'warn').map((l) => l.fields.step)).toEqual(['slow'])
    const took = lines.find((l) => l.msg === 'stopped')?.fields.stepsMs as Record<string, number>
    expect(Object.keys(took)).toEqual(['first', 'slow', 'last'])
    expect(took.slow).toBeGreaterThanOrEqual(100)
  })

  it('Should stop the steps of a stage at once, each timed on its own, before the next stage', async () => {
    const { lines, logger } = recordingLogger()
    const order: string[] = []
    const after = (ms: number, name: string) => () =>
      new Promise<void>((resolve) => setTimeout(() => resolve(void order.push(name)), ms))
    await stopInOrder(
      [
        [
          // 200 ms apart: a loaded machine's stall between the two starts (a CI run saw over 20 ms) must not reorder them.
          { name: 'drain', stop: after(300, 'drain') },
          { name: 'loop', stop: after(100, 'loop') },
        ],
        { name: 'last', stop: () => void order.push('last') },
      ],
      logger,
      1000
    )
    // The shorter second step ends first: both ran at once, not in turn.
    expect(order).toEqual(['loop', 'drain', 'last'])
    const took = lines.find((l) => l.msg === 'stopped')?.fields.stepsMs as Record<string, number>
    expect(took.loop).toBeGreaterThanOrEqual(90)
    expect(took.drain).toBeGreaterThanOrEqual(290)
  })

  it('Should stop at a step that fails, and reject with its error', async () => {
    const { logger } = recordingLogger()
    const order: string[] = []
    await expect(
      stopInOrder(
        [
          { name: 'broken', stop: () => Promise.reject(new Error('pool already closed')) },
          { name: 'never', stop: () => void order.push('never') },
        ],
        logger
      )
    ).rejects.toThrow('pool already closed')
    expect(order).toEqual([])
  })
})
