/**
 * A workflow that refuses a move the database allows is asked again while it catches up with its own activity's
 * result (domain/workflow-runs/workflow-calls.ts `askWhileRefused`); anything else is the caller's at once.
 */
import { ApplicationFailure } from '@temporalio/common'
import { describe, expect, it } from 'vitest'
import { askWhileRefused } from '../../../../domain/workflow-runs/workflow-calls.ts'

/** A refusal as an update's failure carries it: the ApplicationFailure is the cause. */
const refusal = (type: string) =>
  new Error('Workflow Update failed', {
    cause: ApplicationFailure.create({ type, message: 'The lead is QUALIFIED', nonRetryable: true }),
  })

function scripted(outcomes: Array<Error | string>) {
  const waits: number[] = []
  let calls = 0
  const ask = async () => {
    const outcome = outcomes[calls++]!
    if (outcome instanceof Error) throw outcome
    return outcome
  }
  const sleep = async (ms: number) => void waits.push(ms)
  return { ask, sleep, waits, calls: () => calls }
}

describe('askWhileRefused', () => {
  it('asks again while the workflow refuses the move, and returns its answer once it accepts', async () => {
    const run = scripted([refusal('invalid_state_transition'), refusal('invalid_state_transition'), 'OFFERED'])
    await expect(askWhileRefused(run.ask, { sleep: run.sleep, waitMs: 250 })).resolves.toBe('OFFERED')
    expect(run.calls()).toBe(3)
    expect(run.waits).toEqual([250, 250])
  })

  it('gives the last refusal to the caller after its attempts', async () => {
    const last = refusal('invalid_state_transition')
    const run = scripted([refusal('invalid_state_transition'), refusal('invalid_state_transition'), last])
    await expect(askWhileRefused(run.ask, { sleep: run.sleep, attempts: 3 })).rejects.toBe(last)
    expect(run.calls()).toBe(3)
  })

  it('does not ask again after any other failure', async () => {
    for (const failure of [refusal('validation_error'), new Error('connection reset')]) {
      const run = scripted([failure, 'OFFERED'])
      await expect(askWhileRefused(run.ask, { sleep: run.sleep })).rejects.toBe(failure)
      expect(run.calls()).toBe(1)
    }
  })
})
