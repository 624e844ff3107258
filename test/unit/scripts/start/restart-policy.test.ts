import { describe, expect, it } from 'vitest'
import {
  DEFAULT_RESTART_POLICY,
  decideRestart,
  type ProcessExit,
  type RestartPolicy,
} from '../../../../scripts/start/restart-policy.ts'

const policy: RestartPolicy = DEFAULT_RESTART_POLICY

/**
 * Exits of one child on a fake clock: each run lasts its uptime (ms) and the next starts after the delay the policy
 * asked for, as the supervisor would.
 */
function runs(...uptimes: number[]): ProcessExit[] {
  const exits: ProcessExit[] = []
  let clock = 1_000_000
  for (const uptime of uptimes) {
    const exit: ProcessExit = { startedAt: clock, exitedAt: clock + uptime, code: 1, signal: null }
    exits.push(exit)
    const decision = decideRestart(exits, policy)
    clock = exit.exitedAt + (decision.action === 'restart' ? decision.delayMs : 0)
  }
  return exits
}

const delays = (...uptimes: number[]) =>
  uptimes.map((_, i) => {
    const decision = decideRestart(runs(...uptimes.slice(0, i + 1)), policy)
    return decision.action === 'restart' ? decision.delayMs : decision.action
  })

describe('restart policy of npm start', () => {
  it('restarts a process that died after running a while at once, and counts the restarts', () => {
    const exits = runs(3_600_000)
    expect(decideRestart(exits, policy)).toEqual({ action: 'restart', delayMs: 500, restart: 1, startupCrashes: 0 })
    // A SIGKILL is a crash like any other.
    expect(decideRestart([{ ...exits[0]!, signal: 'SIGKILL', code: null }], policy)).toMatchObject({ delayMs: 500 })
  })

  it('doubles the delay for each short run in a row, up to 30 s', () => {
    // Runs of 40 s: past the startup window (never gives up), short of the reset (the backoff grows).
    expect(delays(40_000, 40_000, 40_000, 40_000, 40_000, 40_000, 40_000, 40_000, 40_000)).toEqual([
      500, 1_000, 2_000, 4_000, 8_000, 16_000, 30_000, 30_000, 30_000,
    ])
  })

  it('starts the backoff again after a run that stayed up a minute', () => {
    expect(delays(40_000, 40_000, 40_000, 60_000, 40_000)).toEqual([500, 1_000, 2_000, 500, 1_000])
    expect(delays(40_000, 40_000, 59_999)).toEqual([500, 1_000, 2_000])
  })

  it('gives up on the fifth crash in a row within 30 s of starting', () => {
    expect(delays(2_000, 2_000, 2_000, 2_000, 2_000)).toEqual([500, 1_000, 2_000, 4_000, 'give-up'])
    expect(decideRestart(runs(2_000, 2_000, 2_000, 2_000, 2_000), policy)).toEqual({
      action: 'give-up',
      startupCrashes: 5,
    })
    expect(decideRestart(runs(2_000, 2_000, 2_000, 2_000), policy)).toMatchObject({
      action: 'restart',
      startupCrashes: 4,
    })
  })

  it('counts only crashes in a row at start: one run past the window clears the count', () => {
    expect(delays(1_000, 1_000, 1_000, 1_000, 30_000, 1_000, 1_000, 1_000, 1_000)).toEqual([
      500, 1_000, 2_000, 4_000, 8_000, 16_000, 30_000, 30_000, 30_000,
    ])
    expect(decideRestart(runs(1_000, 1_000, 1_000, 1_000, 30_000, 1_000), policy)).toMatchObject({
      startupCrashes: 1,
      restart: 6,
    })
    // A crash after a long healthy run is the first of a new row, not the fifth.
    expect(delays(3_600_000, 1_000, 1_000, 1_000, 1_000)).toEqual([500, 1_000, 2_000, 4_000, 8_000])
    expect(delays(3_600_000, 1_000, 1_000, 1_000, 1_000, 1_000)).toContain('give-up')
  })

  it('keeps the delay finite however many restarts came before', () => {
    expect(decideRestart(runs(...Array<number>(2_000).fill(40_000)), policy)).toMatchObject({ delayMs: 30_000 })
  })

  it('follows the policy it is given', () => {
    const strict: RestartPolicy = { ...policy, initialDelayMs: 100, maxDelayMs: 250, maxStartupCrashes: 2 }
    const exits = runs(10, 10)
    expect(decideRestart(exits.slice(0, 1), strict)).toMatchObject({ action: 'restart', delayMs: 100 })
    expect(decideRestart(exits, strict)).toEqual({ action: 'give-up', startupCrashes: 2 })
    expect(decideRestart(runs(40_000, 40_000, 40_000), strict)).toMatchObject({ delayMs: 250 })
  })

  it('refuses to decide without an exit', () => {
    expect(() => decideRestart([], policy)).toThrow(/at least one exit/)
  })
})
