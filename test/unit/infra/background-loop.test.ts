import { describe, expect, it } from 'vitest'
import { startBackgroundLoop } from '../../../infra/background-loop.ts'

/** A loop whose runs wait until released, recording the sweep flag of each. */
function harness() {
  const runs: boolean[] = []
  let release: () => void = () => {}
  let wake: () => void = () => {}
  const stop = startBackgroundLoop({
    run: (sweep) => {
      runs.push(sweep)
      return new Promise<void>((resolve) => (release = resolve))
    },
    intervalMs: 3_600_000,
    subscribe: (listener) => {
      wake = listener
      return () => (wake = () => {})
    },
    onError: () => {},
  })
  const settle = () => new Promise((resolve) => setTimeout(resolve, 0))
  return { runs, release: () => release(), wake: () => wake(), stop, settle }
}

describe('a background loop', () => {
  it('sweeps at once, and coalesces the wake-ups during a run into one more run', async () => {
    const loop = harness()
    expect(loop.runs).toEqual([true])
    loop.wake()
    loop.wake()
    loop.wake()
    loop.release()
    await loop.settle()
    expect(loop.runs).toEqual([true, false])
    loop.release()
    await loop.settle()
    loop.wake()
    expect(loop.runs).toEqual([true, false, false])
    loop.release()
    await loop.stop()
  })

  it('goes on after a failed run and stops waking once stopped', async () => {
    const errors: unknown[] = []
    let calls = 0
    let wake: () => void = () => {}
    const stop = startBackgroundLoop({
      run: async () => {
        calls++
        if (calls === 1) throw new Error('database away')
      },
      intervalMs: 3_600_000,
      subscribe: (listener) => {
        wake = listener
        return () => (wake = () => {})
      },
      onError: (error) => errors.push(error),
    })
    await new Promise((resolve) => setTimeout(resolve, 0))
    wake()
    await new Promise((resolve) => setTimeout(resolve, 0))
    expect(calls).toBe(2)
    expect(errors).toHaveLength(1)
    await stop()
    wake()
    await new Promise((resolve) => setTimeout(resolve, 0))
    expect(calls).toBe(2)
  })

  it('lets the wake-ups of a coalescing window share one run, and drops a pending one when stopped', async () => {
    let runs = 0
    let wake: () => void = () => {}
    const stop = startBackgroundLoop({
      run: async () => {
        runs++
      },
      intervalMs: 3_600_000,
      subscribe: (listener) => {
        wake = listener
        return () => (wake = () => {})
      },
      onError: () => {},
      coalesceMs: 20,
    })
    const after = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))
    await after(0)
    expect(runs).toBe(1)
    wake()
    wake()
    wake()
    await after(0)
    expect(runs).toBe(1)
    await after(40)
    expect(runs).toBe(2)
    wake()
    await stop()
    await after(40)
    expect(runs).toBe(2)
  })

  it('never overlaps a slow run with the next tick, nor queues the ticks it missed, and stop awaits the run', async () => {
    let active = 0
    let overlapped = false
    let runs = 0
    let finished = 0
    const after = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))
    const stop = startBackgroundLoop({
      run: async () => {
        runs++
        if (active > 0) overlapped = true
        active++
        // Some twenty ticks fall within this run.
        await after(100)
        active--
        finished++
      },
      intervalMs: 5,
      runAtStart: false,
      onError: () => {},
    })
    expect(runs).toBe(0)
    await after(30)
    expect(runs).toBe(1)
    await after(100)
    // The ticks of the first run made one more run, not twenty.
    expect(runs).toBe(2)
    await stop()
    expect(finished).toBe(runs)
    expect(active).toBe(0)
    expect(overlapped).toBe(false)
    await after(30)
    expect(runs).toBe(finished)
  })

  it('tells the run in progress that the loop is stopping, so a run of many items ends after the one in hand', async () => {
    const done: number[] = []
    let begun: () => void = () => {}
    const inHand = new Promise<void>((resolve) => (begun = resolve))
    const stop = startBackgroundLoop({
      run: async (_sweep, stopping) => {
        for (let item = 1; item <= 100 && !stopping.aborted; item++) {
          if (item === 2) begun()
          await new Promise((resolve) => setTimeout(resolve, 5))
          done.push(item)
        }
      },
      intervalMs: 3_600_000,
      onError: () => {},
    })
    await inHand
    await stop()
    expect(done).toEqual([1, 2])
  })
})
