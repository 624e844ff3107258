/**
 * Provider onboarding where real time and real processes matter, on the real Temporal dev server, the real worker
 * process and the real database: approvals through the API racing the step's timeout at the deadline itself, and a
 * worker killed mid-onboarding. Days are shortened (CARE_WORKFLOW_DAY_MS = 250 ms): a step times out 14 days, 3.5 s,
 * after it began. The policy itself (steps, reminders, timeout, an approval either side of the deadline) is proven
 * on real days on the time-skipping server in provider-onboarding.int.test.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { providerOnboardingWorkflowId } from '../../workflows/provider-onboarding-contract.ts'
import { startPlatform, type Platform } from '../support/platform.ts'

const DAY_MS = 250

let platform: Platform
let token: string
let tenantId: string

beforeAll(async () => {
  platform = await startPlatform({ overrides: { CARE_WORKFLOW_DAY_MS: String(DAY_MS) } })
  const client = await platform.newTenant(['providers', 'bookings', 'webhooks'])
  tenantId = client.tenantId
  token = await platform.token(client)
})

afterAll(async () => {
  // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- unset when beforeAll failed before assigning it
  await platform?.stop()
})

const inAYear = () => new Date(Date.now() + 400 * 86_400_000).toISOString().slice(0, 10)

/** An INVITED provider with a complete profile and a licence valid for another year. */
async function invitedProvider() {
  const created = await platform.http.post('/v1/providers', {
    token,
    body: {
      name: 'Dana Whitfield',
      timeZone: 'America/Chicago',
      email: 'dana@example.test',
      disciplines: ['SPEECH_THERAPY'],
      ageGroups: ['INFANT_TODDLER', 'PRESCHOOL'],
      languages: ['en', 'es'],
      credentials: [
        { type: 'LICENSE', number: 'SLP-104233', issuingCountry: 'US', issuingRegion: 'TX', expiresOn: inAYear() },
      ],
      onboardingStatus: 'INVITED',
    },
  })
  expect(created.status, JSON.stringify(created.body)).toBe(201)
  return created.body.id as string
}

const path = (providerId: string, step = '') => `/v1/providers/${providerId}/onboarding${step ? `/${step}` : ''}`
const post = (providerId: string, step: string, body?: unknown) =>
  platform.http.post(path(providerId, step), { token, ...(body ? { body } : {}) })
const onboarding = async (providerId: string) => (await platform.http.get(path(providerId), { token })).body
const handleOf = (providerId: string) =>
  platform.temporal.workflow.getHandle(providerOnboardingWorkflowId(tenantId, providerId, 1))
const notifications = async (providerId: string) =>
  (await platform.http.get(`${path(providerId, 'notifications')}?sort=createdAt&limit=100`, { token })).body
    .data as Array<{
    kind: string
    status: string
    details: { step?: string; reminder?: number }
  }>
const DOCUMENTS = [
  { type: 'LICENSE', reference: 'docstore://lic-104233.pdf' },
  { type: 'IDENTITY', reference: 'docstore://id-1.pdf' },
]
/** Waits until the wall clock (the dev server's, workflow time here) has passed `at`. */
const until = (at: number) => new Promise((resolve) => setTimeout(resolve, Math.max(0, at - Date.now() + 1)))

/** Drives a fresh provider to the admin's approval step. */
async function atApproval() {
  const providerId = await invitedProvider()
  expect((await post(providerId, '')).status).toBe(201)
  expect((await post(providerId, 'profile')).status).toBe(200)
  expect((await post(providerId, 'documents', { documents: DOCUMENTS })).body.step).toBe('BACKGROUND_CHECK')
  const checked = await post(providerId, 'background-check', { outcome: 'CLEAR', reference: 'chk_1' })
  expect(checked.status, JSON.stringify(checked.body)).toBe(200)
  return providerId
}

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
        const result = await handleOf(providerId).result()
        const provider = (await platform.http.get(`/v1/providers/${providerId}`, { token })).body
        const events = (await platform.http.get(`/v1/events?type=provider.approved&limit=100`, { token })).body
          .data as Array<{ data: { providerId: string } }>
        return {
          offset,
          status: answer.status,
          code: answer.body.code,
          result: result.status,
          provider,
          approvedEvents: events.filter((e) => e.data.providerId === providerId).length,
        }
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
