/**
 * Provider onboarding end to end on Temporal's time-skipping test server, the real API, a real worker with the real
 * activities and the real database: each step is a Temporal update answered by the workflow, licence verification
 * runs by itself, the approval goes through the providers domain (`provider.approved`, delivered to a webhook
 * receiver) and makes the provider bookable. The policy's real days (CARE_WORKFLOW_DAY_MS at its default): a reminder
 * every 3 days while a step waits and the timeout after 14, each asserted a minute either side of its moment by moving
 * the server's clock. Also: refusals with stable codes, cancellation, a new attempt, and an approval either side of the
 * deadline. Approvals racing the timeout at the deadline itself and a worker killed mid-onboarding are in
 * provider-onboarding-outage.int.test.ts, on the dev server.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createProviderOnboardingActivities } from '../../activities/provider-onboarding-activities.ts'
import { providerOnboardingWorkflowId } from '../../common/provider-onboarding/provider-onboarding-contract.ts'
import { recordHistory } from '../replay-histories/record-history.ts'
import { newCentre, type Centre } from '../support/centre.ts'
import { eventually } from '../support/platform.ts'
import {
  DOCUMENTS,
  ONBOARDING_SCOPES,
  inAYear,
  path,
  providerOnboardingScenario,
} from '../support/provider-onboarding-scenario.ts'
import { startTimeSkippingPlatform, type TimeSkippingPlatform } from '../support/time-skipping.ts'
import { startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver.ts'

const DAY_MS = 86_400_000
const REMINDER_EVERY_MS = 3 * DAY_MS
const TIMEOUT_MS = 14 * DAY_MS
const MINUTE_MS = 60_000

let platform: TimeSkippingPlatform
let receiver: WebhookReceiver
let centre: Centre

beforeAll(async () => {
  receiver = await startWebhookReceiver()
  platform = await startTimeSkippingPlatform({
    overrides: {
      WEBHOOK_REQUIRE_HTTPS: 'false',
      WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
    },
  })
  centre = await newCentre(platform, ONBOARDING_SCOPES)
})

afterAll(async () => {
  // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- unset when beforeAll failed before assigning it
  await platform?.stop()
  // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- unset when beforeAll failed before assigning it
  await receiver?.close()
})

const { invitedProvider, post, onboarding, handleOf, notifications, atApproval, outcomeOf } =
  providerOnboardingScenario(() => centre)

type OnboardingView = { status: string; step: string; stepDeadlineAt: string; nextReminderAt: string | null }
/** The workflow's own view of the step's timers (workflow time), once it has run its first task. */
const timersOf = async (providerId: string, attempt = 1) => {
  const view = await eventually(() =>
    handleOf(providerId, attempt)
      .query<OnboardingView>('onboardingState')
      .catch(() => undefined)
  )
  const deadlineAt = Date.parse(view.stepDeadlineAt)
  return { ...view, deadlineAt, stepStartedAt: deadlineAt - TIMEOUT_MS }
}

describe('onboarding from invitation to a bookable provider', () => {
  it('walks every step through the API, ends in provider.approved and a bookable provider', async () => {
    const endpoint = await platform.http.post('/v1/webhook-endpoints', {
      token: centre.token,
      body: { url: receiver.url('/approved'), events: ['provider.approved'] },
    })
    expect(endpoint.status, JSON.stringify(endpoint.body)).toBe(201)
    const providerId = await invitedProvider()

    const started = await post(providerId, '')
    expect(started.status, JSON.stringify(started.body)).toBe(201)
    expect(started.body).toMatchObject({
      status: 'IN_PROGRESS',
      step: 'PROFILE',
      attempt: 1,
      providerStatus: 'INVITED',
    })
    expect(started.body.workflowId).toBe(providerOnboardingWorkflowId(centre.tenantId, providerId, 1))

    // Operators find it by tenant, kind and provider, and read what it is from its summary: ids only.
    const handle = handleOf(providerId)
    const described = await eventually(() => handle.describe().catch(() => undefined))
    expect(described.searchAttributes).toMatchObject({
      TenantId: [centre.tenantId],
      WorkflowKind: ['provider-onboarding'],
      ProviderId: [providerId],
    })
    expect(await described.staticSummary()).toBe(`Provider onboarding: provider ${providerId}, attempt 1`)
    expect(await described.staticDetails()).toContain(`GET /v1/providers/${providerId}/onboarding`)

    const profile = await post(providerId, 'profile')
    expect(profile.status, JSON.stringify(profile.body)).toBe(200)
    expect(profile.body).toMatchObject({ step: 'DOCUMENTS' })
    expect(profile.body.profileConfirmedAt).not.toBeNull()

    // The licence is verified as soon as the documents are in: the answer already says so.
    const documents = await post(providerId, 'documents', { documents: DOCUMENTS })
    expect(documents.status, JSON.stringify(documents.body)).toBe(200)
    expect(documents.body).toMatchObject({
      step: 'BACKGROUND_CHECK',
      documents: DOCUMENTS,
      licenceVerification: { outcome: 'VERIFIED', reasons: [], licence: { number: 'SLP-104233' } },
    })
    // The workflow agrees (its own recording of the step was a no-op).
    expect(await handle.query('onboardingState')).toMatchObject({ status: 'IN_PROGRESS', step: 'BACKGROUND_CHECK' })

    const checked = await post(providerId, 'background-check', { outcome: 'CLEAR', reference: 'chk_55812' })
    expect(checked.status).toBe(200)
    expect(checked.body).toMatchObject({
      step: 'ADMIN_APPROVAL',
      providerStatus: 'IN_REVIEW',
      backgroundCheck: { outcome: 'CLEAR' },
    })
    expect((await platform.http.get(`/v1/providers/${providerId}`, { token: centre.token })).body.bookable).toBe(false)
    // Admins hear at once that a decision waits for them.
    await eventually(
      async () =>
        (await notifications(providerId)).some((n) => n.kind === 'ONBOARDING_READY_FOR_APPROVAL') ? true : undefined,
      10_000
    )

    const approved = await post(providerId, 'approve')
    expect(approved.status, JSON.stringify(approved.body)).toBe(200)
    expect(approved.body).toMatchObject({ status: 'APPROVED', providerStatus: 'APPROVED', stepDeadlineAt: null })
    const provider = (await platform.http.get(`/v1/providers/${providerId}`, { token: centre.token })).body
    expect(provider).toMatchObject({ onboardingStatus: 'APPROVED', bookable: true })

    expect(await handle.result()).toMatchObject({ status: 'APPROVED', step: 'ADMIN_APPROVAL' })
    // Recorded again after the ready-for-approval patch: this history has the patch marker, the older one has not.
    await recordHistory(handle, 'providerOnboardingWorkflow-approved-with-ready-notice')

    // provider.approved, recorded by the providers domain's own operation, reaches the subscriber.
    const pumped = await platform.pumpWebhooks()
    const [delivery] = await receiver.waitFor('/approved', 1, 20_000).catch(async (error: unknown) => {
      // What the pump did and what the queue holds, so that a miss says where the delivery stopped.
      const queued = await platform.db.webhookDelivery.findMany({
        where: { eventType: 'provider.approved' },
        select: { status: true, nextAttemptAt: true, dispatchLeaseUntil: true, lastError: true, createdAt: true },
      })
      const events = await platform.db.event.findMany({
        where: { type: 'provider.approved' },
        select: { id: true, createdAt: true, fannedOutAt: true },
      })
      throw new Error(`${String(error)}; pump ${JSON.stringify(pumped)}; ${JSON.stringify({ queued, events })}`)
    })
    const event = JSON.parse(delivery!.body)
    expect(event).toMatchObject({ type: 'provider.approved', data: { providerId } })
    // Any reminder or notice of the steps passed is answered, none stays open.
    const after = await notifications(providerId)
    expect(after.filter((n) => n.status === 'OPEN')).toEqual([])
    expect(after.find((n) => n.kind === 'ONBOARDING_READY_FOR_APPROVAL')?.status).toBe('RESOLVED')
  })
})

describe('refusals keep their stable codes', () => {
  it('refuses steps out of order, an incomplete profile, missing documents, a second start and other tenants', async () => {
    const providerId = await invitedProvider({ email: undefined, languages: [] })
    expect((await post(providerId, 'profile')).body.code).toBe('invalid_state_transition')
    expect((await post(providerId, '')).status).toBe(201)

    const early = await post(providerId, 'approve')
    expect(early.status).toBe(409)
    expect(early.body).toMatchObject({ code: 'invalid_state_transition' })
    expect(early.body.detail).toContain('PROFILE')

    const incomplete = await post(providerId, 'profile')
    expect(incomplete.status).toBe(400)
    expect(incomplete.body.code).toBe('validation_error')
    expect(incomplete.body.errors.map((e: { path: string; code: string }) => `${e.path}:${e.code}`)).toEqual([
      'email:profile_incomplete',
      'languages:profile_incomplete',
    ])
    const fixed = await platform.http.request('PATCH', `/v1/providers/${providerId}`, {
      token: centre.token,
      body: { email: 'dana@example.test', languages: ['en'] },
      headers: { 'Content-Type': 'application/merge-patch+json' },
    })
    expect(fixed.status).toBe(200)
    expect((await post(providerId, 'profile')).status).toBe(200)

    const missing = await post(providerId, 'documents', { documents: [{ type: 'LICENSE', reference: 'x' }] })
    expect(missing.status).toBe(400)
    expect(missing.body.errors).toEqual([expect.objectContaining({ path: 'documents', code: 'document_required' })])
    expect((await onboarding(providerId)).step).toBe('DOCUMENTS')

    expect((await post(providerId, '')).body).toMatchObject({ status: 409, code: 'invalid_state_transition' })
    const approvedProvider = await invitedProvider({ onboardingStatus: 'APPROVED' })
    expect((await post(approvedProvider, '')).body).toMatchObject({ status: 409, code: 'invalid_state_transition' })

    const other = await platform.newTenant(['providers'])
    const otherToken = await platform.token(other)
    expect((await platform.http.get(path(providerId), { token: otherToken })).status).toBe(404)
    expect((await platform.http.post(path(providerId, 'approve'), { token: otherToken })).status).toBe(404)
    expect((await platform.http.get(path(await invitedProvider()), { token: centre.token })).status).toBe(404)
    // Left running, as are the other workflows a test is done with: it times out by itself as later tests move the
    // clock. Ending a workflow while its activity records the last step stalls the test server's clock for good (a
    // cancellation of the just-completed activity is refused with ACTIVITY_UNKNOWN and the workflow task fails over
    // and over; a termination loses the running activity's hold on the clock), where a real server carries on.
  })

  it('stops at a licence that fails verification until the credentials are corrected', async () => {
    const providerId = await invitedProvider({
      credentials: [
        { type: 'LICENSE', number: 'SLP-9', issuingCountry: 'US', issuingRegion: 'TX', expiresOn: '2025-01-31' },
      ],
    })
    await post(providerId, '')
    await post(providerId, 'profile')
    const failed = (await post(providerId, 'documents', { documents: DOCUMENTS })).body
    expect(failed).toMatchObject({
      step: 'LICENCE_VERIFICATION',
      licenceVerification: { outcome: 'FAILED', reasons: ['LICENSE_EXPIRED'] },
    })
    expect((await notifications(providerId)).map((n) => n.kind)).toContain('ONBOARDING_LICENCE_NOT_VERIFIED')

    await platform.http.request('PATCH', `/v1/providers/${providerId}`, {
      token: centre.token,
      body: {
        credentials: [
          { type: 'LICENSE', number: 'SLP-9', issuingCountry: 'US', issuingRegion: 'TX', expiresOn: inAYear() },
        ],
      },
      headers: { 'Content-Type': 'application/merge-patch+json' },
    })
    // The workflow records the documents' verification again through its activity, which may run only now, after the
    // correction: the request recorded the failed check, so the activity must not verify again and pass on its own.
    const recorded = await onboarding(providerId)
    const timers = {
      stepStartedAt: Date.parse(recorded.stepStartedAt),
      stepDeadlineAt: Date.parse(recorded.stepDeadlineAt),
      nextReminderAt: recorded.nextReminderAt ? Date.parse(recorded.nextReminderAt) : null,
    }
    // On the workflows' clock, as the worker's activities are.
    const now = new Date(await platform.now())
    const activities = createProviderOnboardingActivities({ db: platform.db, now: () => now })
    expect(
      await activities.applyOnboardingStep({
        tenantId: centre.tenantId,
        providerId,
        attempt: 1,
        op: { action: 'verifyLicence' },
        timers,
      })
    ).toEqual({
      status: 'IN_PROGRESS',
      step: 'LICENCE_VERIFICATION',
    })
    const retried = await post(providerId, 'licence-verification')
    expect(retried.status, JSON.stringify(retried.body)).toBe(200)
    expect(retried.body).toMatchObject({ step: 'BACKGROUND_CHECK', licenceVerification: { outcome: 'VERIFIED' } })
  })
})

describe('reminders, timeouts and cancellation', () => {
  it('reminds every 3 days while a step waits, times out after 14 days, and allows a new attempt', async () => {
    const providerId = await invitedProvider()
    await post(providerId, '')
    const handle = handleOf(providerId)
    const { stepStartedAt, deadlineAt, nextReminderAt } = await timersOf(providerId)
    expect(nextReminderAt).toBe(new Date(stepStartedAt + REMINDER_EVERY_MS).toISOString())
    const reminders = async () =>
      (await notifications(providerId)).filter((n) => n.kind === 'ONBOARDING_REMINDER').map((n) => n.details.reminder)

    // Each reminder on its day (3, 6, 9 and 12 days into the step), not before, once; none on the timeout's day.
    for (const n of [1, 2, 3, 4]) {
      await platform.skipTo(stepStartedAt + n * REMINDER_EVERY_MS - MINUTE_MS)
      expect(await reminders()).toEqual([1, 2, 3, 4].slice(0, n - 1))
      await platform.skipTo(stepStartedAt + n * REMINDER_EVERY_MS + MINUTE_MS)
      expect(await reminders()).toEqual([1, 2, 3, 4].slice(0, n))
      const view = await handle.query<OnboardingView>('onboardingState')
      expect(view).toMatchObject({ status: 'IN_PROGRESS', step: 'PROFILE' })
      expect(view.nextReminderAt).toBe(
        n < 4 ? new Date(stepStartedAt + (n + 1) * REMINDER_EVERY_MS).toISOString() : null
      )
    }
    // Timed out at the end of the fourteenth day, not before.
    await platform.skipTo(deadlineAt - MINUTE_MS)
    expect((await onboarding(providerId)).status).toBe('IN_PROGRESS')
    expect((await notifications(providerId)).map((n) => n.kind)).not.toContain('ONBOARDING_TIMED_OUT')
    await platform.skipTo(deadlineAt + MINUTE_MS)

    expect(await handle.result()).toEqual({ status: 'TIMED_OUT', step: 'PROFILE', remindersSent: 4 })
    const recorded = await notifications(providerId)
    expect(recorded.map((n) => `${n.kind}:${n.details.step}:${n.details.reminder ?? ''}:${n.status}`)).toEqual([
      'ONBOARDING_REMINDER:PROFILE:1:CANCELLED',
      'ONBOARDING_REMINDER:PROFILE:2:CANCELLED',
      'ONBOARDING_REMINDER:PROFILE:3:CANCELLED',
      'ONBOARDING_REMINDER:PROFILE:4:CANCELLED',
      'ONBOARDING_TIMED_OUT:PROFILE::OPEN',
    ])
    expect(await onboarding(providerId)).toMatchObject({
      status: 'TIMED_OUT',
      providerStatus: 'INVITED',
      stepDeadlineAt: null,
    })
    await recordHistory(handle, 'providerOnboardingWorkflow-timed-out')

    const again = await post(providerId, '')
    expect(again.status).toBe(201)
    expect(again.body).toMatchObject({
      attempt: 2,
      status: 'IN_PROGRESS',
      step: 'PROFILE',
      workflowId: providerOnboardingWorkflowId(centre.tenantId, providerId, 2),
    })
    expect((await post(providerId, 'profile')).body.step).toBe('DOCUMENTS')
  })

  it('cancels through the API: the workflow records CANCELLED and the reminders are cancelled', async () => {
    const providerId = await invitedProvider()
    await post(providerId, '')
    const { stepStartedAt } = await timersOf(providerId)
    await platform.skipTo(stepStartedAt + REMINDER_EVERY_MS + MINUTE_MS)
    expect((await notifications(providerId)).map((n) => `${n.kind}:${n.status}`)).toEqual(['ONBOARDING_REMINDER:OPEN'])
    const cancelled = await platform.http.request('DELETE', path(providerId), { token: centre.token })
    expect(cancelled.status, JSON.stringify(cancelled.body)).toBe(200)
    expect(cancelled.body).toMatchObject({ status: 'CANCELLED', step: 'PROFILE' })
    await handleOf(providerId)
      .result()
      .catch(() => undefined)
    expect((await handleOf(providerId).describe()).status.name).toBe('CANCELLED')
    expect((await notifications(providerId)).every((n) => n.status === 'CANCELLED')).toBe(true)
    expect((await platform.http.request('DELETE', path(providerId), { token: centre.token })).body.code).toBe(
      'invalid_state_transition'
    )
    await recordHistory(handleOf(providerId), 'providerOnboardingWorkflow-cancelled')
  })
})

describe('an approval either side of the timeout', () => {
  it('approves a minute before the deadline (provider.approved, bookable), and is refused a minute after it (TIMED_OUT)', async () => {
    const early = await atApproval()
    const late = await atApproval()
    const earlyTimers = await timersOf(early)
    const lateTimers = await timersOf(late)
    expect(earlyTimers.step).toBe('ADMIN_APPROVAL')

    await platform.skipTo(earlyTimers.deadlineAt - MINUTE_MS)
    const approved = await post(early, 'approve')
    expect(approved.status, JSON.stringify(approved.body)).toBe(200)
    expect(await outcomeOf(early)).toMatchObject({
      result: 'APPROVED',
      provider: { onboardingStatus: 'APPROVED', bookable: true },
      approvedEvents: 1,
    })

    await platform.skipTo(lateTimers.deadlineAt + MINUTE_MS)
    expect((await onboarding(late)).status).toBe('TIMED_OUT')
    const refused = await post(late, 'approve')
    expect(refused.status, JSON.stringify(refused.body)).toBe(409)
    expect(refused.body.code).toBe('invalid_state_transition')
    expect(await outcomeOf(late)).toMatchObject({
      result: 'TIMED_OUT',
      provider: { onboardingStatus: 'IN_REVIEW', bookable: false },
      approvedEvents: 0,
    })
  })
})
