/**
 * Provider onboarding where real time and real processes matter, on the real Temporal dev server, the real worker
 * process and the real database: approvals through the API racing the step's timeout at the deadline itself, and a
 * worker killed mid-onboarding. Days are shortened (CARE_WORKFLOW_DAY_MS = 250 ms): a step times out 14 days, 3.5 s,
 * after it began. The policy itself (steps, reminders, timeout, an approval either side of the deadline) is proven
 * on real days on the time-skipping server in provider-onboarding.int.test.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { newCentre, type Centre } from '../support/centre.ts'
import { startPlatform, until, type Platform } from '../support/platform.ts'
import { DOCUMENTS, ONBOARDING_SCOPES, providerOnboardingScenario } from '../support/provider-onboarding-scenario.ts'
import { untilNoActivityRuns } from '../support/time-skipping.ts'

const DAY_MS = 250

let platform: Platform
let centre: Centre

beforeAll(async () => {
  platform = await startPlatform({ overrides: { CARE_WORKFLOW_DAY_MS: String(DAY_MS) } })
  centre = await newCentre(platform, ONBOARDING_SCOPES)
})

afterAll(async () => {
  // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- unset when beforeAll failed before assigning it
  await platform?.stop()
})

const { invitedProvider, post, onboarding, handleOf, notifications, atApproval, outcomeOf } =
  providerOnboardingScenario(() => centre)

describe('an approval racing the timeout', () => {
  it('either approves (provider.approved, bookable) or times out, never both and never neither', async () => {
    // Around the deadline itself, where the request and the timer really race (either side of it is proven
    // deterministically on the time-skipping server): whichever wins, the database agrees with the answer.
    const offsets = [-200, -100, 0, 100, 200]
    const outcomes = await Promise.all(
      offsets.map(async (offset) => {
        const providerId = await atApproval()
        await until(Date.parse((await onboarding(providerId)).stepDeadlineAt) + offset)
        const answer = await post(providerId, 'approve')
        return { offset, status: answer.status, code: answer.body.code, ...(await outcomeOf(providerId)) }
      })
    )
    for (const o of outcomes) {
      if (o.status === 200) {
        expect(o, JSON.stringify(o)).toMatchObject({
          result: 'APPROVED',
          provider: { onboardingStatus: 'APPROVED', bookable: true },
          approvedEvents: 1,
        })
      } else {
        expect(o, JSON.stringify(o)).toMatchObject({
          status: 409,
          code: 'invalid_state_transition',
          result: 'TIMED_OUT',
          provider: { onboardingStatus: 'IN_REVIEW', bookable: false },
          approvedEvents: 0,
        })
      }
    }
  }, 60_000)
})

describe('a worker killed mid-onboarding', () => {
  it('carries on after a crash: the timeout that fell due while no worker ran is recorded once, without the moot reminders', async () => {
    const providerId = await invitedProvider()
    await post(providerId, '')
    await post(providerId, 'profile')
    const documents = await post(providerId, 'documents', { documents: DOCUMENTS })
    expect(documents.body.step).toBe('BACKGROUND_CHECK')
    const atBackgroundCheck = async () =>
      (await notifications(providerId)).filter((n) => n.details.step === 'BACKGROUND_CHECK')

    // Killed between activities, as this test is about the timers that fall due meanwhile: killed while recording the
    // accepted step, the worker's attempt would hold the run for its whole 30 s start-to-close timeout (a run took
    // 33 s where another took 12), and the deadline would pass with the run waiting on the activity, not the timers.
    await untilNoActivityRuns(handleOf(providerId))
    await platform.killWorkers('SIGKILL')
    const beforeCrash = await atBackgroundCheck()
    // Past the step's deadline (the workflow's own, which the update answered): all four reminders and the timeout
    // came due while no worker ran, and nothing was recorded.
    await until(Date.parse(documents.body.stepDeadlineAt))
    expect(await atBackgroundCheck()).toEqual(beforeCrash)
    expect((await onboarding(providerId)).status).toBe('IN_PROGRESS')
    await platform.startWorker()

    const result = await handleOf(providerId).result()
    expect(result).toMatchObject({ status: 'TIMED_OUT', step: 'BACKGROUND_CHECK' })
    // The reminders due meanwhile were made moot by the timeout, which is recorded once.
    const after = await atBackgroundCheck()
    expect(after.slice(0, beforeCrash.length).map((n) => `${n.kind}:${n.details.reminder}`)).toEqual(
      beforeCrash.map((n) => `${n.kind}:${n.details.reminder}`)
    )
    expect(after.slice(beforeCrash.length).map((n) => `${n.kind}:${n.status}`)).toEqual(['ONBOARDING_TIMED_OUT:OPEN'])
    expect(
      after.slice(0, beforeCrash.length).every((n) => n.kind === 'ONBOARDING_REMINDER' && n.status === 'CANCELLED')
    ).toBe(true)
  }, 150_000) // a fresh worker process bundles the workflows and waits out the dead worker's sticky queue
})
