import { describe, expect, it } from 'vitest'
import { createQueryAnswersByHistory } from '../../../../domain/workflow-runs/query-answers-by-history.ts'

const run = (historyLength: number, runId = 'run-1') => ({ runId, historyLength })

/** An ask that counts its calls and answers `value` (or fails with it, when it is an Error) once released. */
function askFor(value: unknown) {
  let release = () => {}
  const released = new Promise<void>((resolve) => (release = resolve))
  const ask = Object.assign(
    async () => {
      ask.calls++
      await released
      if (value instanceof Error) throw value
      return value
    },
    { calls: 0 }
  )
  return { ask, release }
}
const answering = (value: unknown) => {
  const { ask, release } = askFor(value)
  release()
  return ask
}

describe('query answers by history', () => {
  it('answers from what was asked at the same run and history length, without asking again', async () => {
    const answers = createQueryAnswersByHistory()
    const ask = answering({ state: 'CONFIRMED' })
    expect(await answers.answer('booking-a', 'bookingView', run(7), ask)).toEqual({ state: 'CONFIRMED' })
    expect(await answers.answer('booking-a', 'bookingView', run(7), ask)).toEqual({ state: 'CONFIRMED' })
    expect(ask.calls).toBe(1)
  })

  it('asks again once the history has grown, or for another run of the same id', async () => {
    const answers = createQueryAnswersByHistory()
    await answers.answer('booking-a', 'bookingView', run(7), answering('CONFIRMED'))
    expect(await answers.answer('booking-a', 'bookingView', run(9), answering('CANCELLED'))).toBe('CANCELLED')
    expect(await answers.answer('booking-a', 'bookingView', run(7, 'run-2'), answering('NEW RUN'))).toBe('NEW RUN')
    // The newer version replaced the older: the workflow's history does not shrink.
    const again = answering('asked again')
    expect(await answers.answer('booking-a', 'bookingView', run(7), again)).toBe('asked again')
    expect(again.calls).toBe(1)
  })

  it('keeps answers apart by workflow and by query', async () => {
    const answers = createQueryAnswersByHistory()
    await answers.answer('booking-a', 'bookingView', run(7), answering('a'))
    await answers.answer('booking-b', 'bookingView', run(7), answering('b'))
    await answers.answer('booking-a', 'followUpView', run(7), answering('follow-up'))
    const unasked = answering('not kept')
    expect(await answers.answer('booking-a', 'bookingView', run(7), unasked)).toBe('a')
    expect(await answers.answer('booking-b', 'bookingView', run(7), unasked)).toBe('b')
    expect(await answers.answer('booking-a', 'followUpView', run(7), unasked)).toBe('follow-up')
    expect(unasked.calls).toBe(0)
  })

  it('keeps a null answer (a query the run does not have) as known', async () => {
    const answers = createQueryAnswersByHistory()
    await answers.answer('booking-legacy', 'bookingView', run(3), answering(null))
    const ask = answering('not kept')
    expect(await answers.answer('booking-legacy', 'bookingView', run(3), ask)).toBeNull()
    expect(ask.calls).toBe(0)
  })

  it('sends one ask for the callers that want the same version at once, and gives each its answer', async () => {
    const answers = createQueryAnswersByHistory()
    const { ask, release } = askFor('CONFIRMED')
    const views = Array.from({ length: 16 }, () => answers.answer('booking-a', 'bookingView', run(7), ask))
    // Another version, or another workflow, is its own ask.
    const other = answering('other')
    const grown = answers.answer('booking-a', 'bookingView', run(8), other)
    const elsewhere = answers.answer('booking-b', 'bookingView', run(7), other)
    release()
    expect(await Promise.all(views)).toEqual(Array(16).fill('CONFIRMED'))
    expect(await grown).toBe('other')
    expect(await elsewhere).toBe('other')
    expect(ask.calls).toBe(1)
    expect(other.calls).toBe(2)
  })

  it('gives a failed ask to the callers that shared it, keeps nothing, and asks again for the next', async () => {
    const answers = createQueryAnswersByHistory()
    const { ask, release } = askFor(new Error('Failed to query Workflow'))
    const views = [1, 2, 3].map(() => answers.answer('booking-a', 'bookingView', run(7), ask))
    release()
    for (const view of views) await expect(view).rejects.toThrow('Failed to query Workflow')
    expect(ask.calls).toBe(1)
    const next = answering('CONFIRMED')
    expect(await answers.answer('booking-a', 'bookingView', run(7), next)).toBe('CONFIRMED')
    expect(next.calls).toBe(1)
  })

  it('drops the least recently used entry past its bound', async () => {
    const answers = createQueryAnswersByHistory(2)
    await answers.answer('a', 'q', run(1), answering('a'))
    await answers.answer('b', 'q', run(1), answering('b'))
    // Reading a makes b the least recently used.
    const unasked = answering('asked')
    expect(await answers.answer('a', 'q', run(1), unasked)).toBe('a')
    await answers.answer('c', 'q', run(1), answering('c'))
    expect(await answers.answer('a', 'q', run(1), unasked)).toBe('a')
    expect(await answers.answer('c', 'q', run(1), unasked)).toBe('c')
    expect(unasked.calls).toBe(0)
    expect(await answers.answer('b', 'q', run(1), unasked)).toBe('asked')
    expect(unasked.calls).toBe(1)
  })
})
