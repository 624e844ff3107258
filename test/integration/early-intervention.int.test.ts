/**
 * The early-intervention check-in end to end on Temporal's time-skipping test server, the real API, a real worker with
 * the real activities and the real database, driven through the children API, on the plan's real days
 * (CARE_WORKFLOW_DAY_MS at its default, so plan time is the workflows' time). The test moves the server's clock: a
 * referral put 44 days back gets its day-44 reminder at once and its breach when day 46 begins, asserted a minute
 * either side of the moment the workflow's own plan names. Dates are the centre's calendar dates on the workflows'
 * clock (`platform.now()`). Proves: the workflow starts with the enrolment (search attributes, summary), reminders and
 * the breach go out on their days and the API shows the deadlines; a PATCH of the dates re-plans at once; a documented
 * exception stops the breach; a meeting recorded before the breach day stops it; exit and archive close the plan and a
 * return restarts it. A meeting recorded while the breach timer fires and a worker killed mid-clock are in
 * early-intervention-outage.int.test.ts, on the dev server.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  earlyInterventionWorkflowId,
  type EarlyInterventionState,
} from '../../common/early-intervention/early-intervention-contract.ts'
import { recordHistory } from '../replay-histories/record-history.ts'
import { newCentre, type Centre } from '../support/centre.ts'
import { dayFrom, deadline, earlyInterventionScenario } from '../support/early-intervention-scenario.ts'
import { eventually } from '../support/platform.ts'
import {
  resultOrTerminate,
  startTimeSkippingPlatform,
  untilNoActivityRuns,
  type TimeSkippingPlatform,
} from '../support/time-skipping.ts'

const DAY_MS = 86_400_000
const MINUTE_MS = 60_000
const ZONE = 'America/Chicago'

let platform: TimeSkippingPlatform
let centre: Centre

beforeAll(async () => {
  platform = await startTimeSkippingPlatform()
  centre = await newCentre(platform, ['children'], ZONE)
})

afterAll(async () => {
  // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- unset when beforeAll failed before assigning it
  await platform?.stop()
})

// Dates are the centre's on the workflows' clock, which runs ahead of the wall clock by everything skipped.
const { localDate, enrolledChild, planOf, notices, ofKind, patchEi, handleOf } = earlyInterventionScenario(
  () => centre,
  { zone: ZONE, now: () => platform.now() }
)
const stateOf = (childId: string) => handleOf(childId).query<EarlyInterventionState>('earlyInterventionState')
/** The workflow's next notice once it has loaded the plan and has one (`kind`, when given). */
const nextNotice = (childId: string, kind?: string) =>
  eventually(async () => {
    const next = (await stateOf(childId).catch(() => undefined))?.next
    return next && (!kind || next.kind === kind) ? { kind: next.kind, at: Date.parse(next.at) } : undefined
  })

describe('the 45-day clock', () => {
  it('starts with the enrolment, reminds, flags the breach on day 46, and a late meeting re-plans the deadlines', async () => {
    const today = await localDate(0)
    const referralDate = dayFrom(today, -44)
    const childId = await enrolledChild({
      referralDate,
      referralSource: 'PHYSICIAN',
      serviceCoordinator: { name: 'Ana Ruiz' },
    })
    const handle = handleOf(childId)

    const described = await eventually(() => handle.describe().catch(() => undefined))
    expect(described.type).toBe('earlyInterventionWorkflow')
    expect(described.searchAttributes).toMatchObject({
      TenantId: [centre.tenantId],
      WorkflowKind: ['early-intervention'],
      ChildId: [childId],
    })
    expect(await described.staticSummary()).toBe(`Early-intervention check-in: child ${childId}`)
    // Ids only: nothing of the child's record in what operators see.
    expect(`${await described.staticSummary()} ${await described.staticDetails()}`).not.toMatch(
      /Noah|Reyes|Ana Ruiz|PHYSICIAN|\d{4}-\d{2}-\d{2}/
    )

    // Day 44's reminder at once (the day-30 and day-40 ones are stale), and the latest monthly check-in.
    const reminder = await eventually(async () => (await ofKind(childId, 'INITIAL_IFSP_REMINDER'))[0], 10_000)
    expect(reminder).toMatchObject({
      dueDate: dayFrom(today, 1),
      details: { series: 'INITIAL_IFSP', daysFromDue: -1 },
      status: 'OPEN',
    })
    expect(await ofKind(childId, 'FAMILY_CHECK_IN')).toHaveLength(1)

    // The breach when day 46 begins in the centre's zone (the workflow's plan says when), not before.
    const breachAt = (await nextNotice(childId, 'INITIAL_IFSP_BREACHED')).at
    expect(new Intl.DateTimeFormat('en-CA', { timeZone: ZONE }).format(new Date(breachAt))).toBe(dayFrom(today, 2))
    await platform.skipTo(breachAt - MINUTE_MS)
    expect(await ofKind(childId, 'INITIAL_IFSP_BREACHED')).toEqual([])
    expect(deadline(await planOf(childId), 'INITIAL_IFSP')?.status).not.toBe('OVERDUE')
    await platform.skipTo(breachAt + MINUTE_MS)
    const [breach, ...more] = await ofKind(childId, 'INITIAL_IFSP_BREACHED')
    expect(more).toEqual([])
    expect(breach).toMatchObject({ dueDate: dayFrom(today, 1), details: { daysFromDue: 1 }, status: 'OPEN' })
    const overdue = await planOf(childId)
    expect(deadline(overdue, 'INITIAL_IFSP')?.status).toBe('OVERDUE')
    expect(overdue).toMatchObject({
      enrolled: true,
      status: 'ACTIVE',
      workflowId: earlyInterventionWorkflowId(centre.tenantId, childId),
    })
    expect(overdue.deadlines.map((d: { kind: string }) => d.kind)).toEqual(['INITIAL_IFSP', 'TRANSITION_PLAN', 'EXIT'])
    expect(overdue.nextCheckInDate).not.toBeNull()

    // The meeting, held two days past the limit: met late, the breach and the reminder are answered, reviews begin.
    const held = dayFrom(today, 3)
    expect((await patchEi(childId, { initialIfspDate: held })).status).toBe(200)
    const replanned = await eventually(async () => {
      const plan = await planOf(childId)
      return deadline(plan, 'INITIAL_IFSP')?.status === 'MET_LATE' ? plan : undefined
    }, 10_000)
    expect(deadline(replanned, 'INITIAL_IFSP')).toMatchObject({ metOn: held })
    expect(deadline(replanned, 'PERIODIC_REVIEW')?.dueDate).toMatch(/^\d{4}-\d{2}-\d{2}$/)
    expect(deadline(replanned, 'ANNUAL_MEETING')?.dueDate).toMatch(/^\d{4}-\d{2}-\d{2}$/)
    await eventually(
      async () => ((await ofKind(childId, 'INITIAL_IFSP_BREACHED'))[0]?.status === 'RESOLVED' ? true : undefined),
      10_000
    )
    expect((await ofKind(childId, 'INITIAL_IFSP_REMINDER')).map((n) => n.status)).toEqual(['RESOLVED'])
    // Exactly one breach notice, however often the plan was reloaded.
    expect(await ofKind(childId, 'INITIAL_IFSP_BREACHED')).toHaveLength(1)

    expect((await platform.http.request('DELETE', `/v1/children/${childId}`, { token: centre.token })).status).toBe(200)
    expect(await handle.result()).toMatchObject({ outcome: 'ARCHIVED' })
    await recordHistory(handle, 'earlyInterventionWorkflow-breach-then-met-late')
  })

  it('a documented exception stops the breach notice; withdrawing it lets the breach through', async () => {
    const today = await localDate(0)
    const childId = await enrolledChild({ referralDate: dayFrom(today, -40) })
    const excepted = await platform.http.post(`/v1/children/${childId}/early-intervention/timeline-exception`, {
      token: centre.token,
      body: { reason: 'FAMILY_CIRCUMSTANCES', note: 'Family relocated for six weeks; see the contact log.' },
    })
    expect(excepted.status, JSON.stringify(excepted.body)).toBe(200)
    expect(excepted.body.timelineException).toMatchObject({ reason: 'FAMILY_CIRCUMSTANCES' })

    // Well past the limit (due on day 45, five days from now): no breach, the deadline is excepted.
    await eventually(
      async () => (deadline(await planOf(childId), 'INITIAL_IFSP')?.status === 'EXCEPTED' ? true : undefined),
      10_000
    )
    await platform.skip('10 days')
    expect(await ofKind(childId, 'INITIAL_IFSP_BREACHED')).toEqual([])
    expect(deadline(await planOf(childId), 'INITIAL_IFSP')?.status).toBe('EXCEPTED')

    expect(
      (
        await platform.http.request('DELETE', `/v1/children/${childId}/early-intervention/timeline-exception`, {
          token: centre.token,
        })
      ).status
    ).toBe(200)
    const breach = await eventually(async () => (await ofKind(childId, 'INITIAL_IFSP_BREACHED'))[0], 10_000)
    expect(breach.dueDate).toBe(dayFrom(today, 5))

    const refused = await platform.http.post(
      `/v1/children/${await enrolledChild({ referralDate: await localDate(-10), initialIfspDate: await localDate(-2) })}/early-intervention/timeline-exception`,
      {
        token: centre.token,
        body: { reason: 'CONSENT_PENDING', note: 'n/a' },
      }
    )
    expect(refused.body).toMatchObject({ status: 409, code: 'invalid_state_transition' })
    // Left running, as are the other workflows a test is done with: ending one while its activity runs stalls the
    // test server's clock for good (see provider-onboarding.int.test.ts).
  })

  it('a meeting recorded before the breach day stops the breach notice', async () => {
    const today = await localDate(0)
    const childId = await enrolledChild({ referralDate: dayFrom(today, -45) })
    const breachAt = (await nextNotice(childId, 'INITIAL_IFSP_BREACHED')).at
    expect((await patchEi(childId, { initialIfspDate: today })).status).toBe(200)
    await eventually(
      async () => (deadline(await planOf(childId), 'INITIAL_IFSP')?.status === 'MET' ? true : undefined),
      10_000
    )
    await platform.skipTo(breachAt + DAY_MS)
    expect(await ofKind(childId, 'INITIAL_IFSP_BREACHED')).toEqual([])
    expect(deadline(await planOf(childId), 'INITIAL_IFSP')).toMatchObject({ status: 'MET', metOn: today })
  })
})

describe('changes, exit and return', () => {
  it('re-plans the review when one is recorded, closes on exit and starts again when the child returns', async () => {
    const childId = await enrolledChild({
      referralDate: await localDate(-100),
      initialIfspDate: await localDate(-60),
      consentDate: await localDate(-60),
    })
    const handle = handleOf(childId)
    const first = await eventually(async () => {
      const plan = await planOf(childId)
      return deadline(plan, 'PERIODIC_REVIEW') ? plan : undefined
    }, 10_000)
    const firstReview = deadline(first, 'PERIODIC_REVIEW')!.dueDate

    expect((await patchEi(childId, { lastIfspReviewDate: await localDate(-1) })).status).toBe(200)
    const moved = await eventually(async () => {
      const review = deadline(await planOf(childId), 'PERIODIC_REVIEW')
      return review && review.dueDate !== firstReview ? review : undefined
    }, 10_000)
    expect(moved.dueDate > firstReview).toBe(true)
    const { runId } = await handle.describe()

    // The exit ends the run. The time-skipping server cannot end a run that still has an activity running (here the
    // re-plan's): it refuses the completion with ACTIVITY_UNKNOWN and the run never ends (seen in 2 of 6 runs). A
    // real server cancels the activity. So the exit comes once the re-plan is recorded and the run waits on timers.
    await untilNoActivityRuns(handle)
    expect((await patchEi(childId, { exitDate: await localDate(0) })).status).toBe(200)
    // Even so the test server now and then refuses the run's end (resultOrTerminate says how): the run's outcome is
    // then unknown, and what follows checks the plan the exit closed and the new run on return.
    const exited = await resultOrTerminate<{ outcome: string }>(handle, 30_000)
    if (exited) expect(exited).toMatchObject({ outcome: 'EXITED' })
    const closed = await planOf(childId)
    expect(closed).toMatchObject({ enrolled: false, status: 'CLOSED', closedReason: 'EXITED', nextCheckInDate: null })
    expect((await notices(childId)).filter((n) => n.status === 'OPEN')).toEqual([])
    await recordHistory(handle, 'earlyInterventionWorkflow-exited')

    // The exit is undone: a new run of the same workflow id takes the clock up again.
    expect((await patchEi(childId, { exitDate: null })).status).toBe(200)
    const restarted = await eventually(async () => {
      const described = await handle.describe()
      return described.runId !== runId && described.status.name === 'RUNNING' ? described : undefined
    }, 15_000)
    expect(restarted.runId).not.toBe(runId)
    await eventually(async () => ((await planOf(childId)).status === 'ACTIVE' ? true : undefined), 10_000)
    // The same for a cancel (above): once the new run waits on its timers only.
    await untilNoActivityRuns(handle)
    await handle.cancel()
    // The test server may refuse this run's end too (ACTIVITY_UNKNOWN, seen in a fresh-clone CI run on 2026-11-26):
    // the run is then terminated with its cancellation unfinished, an outcome of the test server's and not the
    // product's, so the plan is checked when the run ended (cancelled, or completed by its cancellation handler).
    const ended = await resultOrTerminate(handle, 30_000).then(
      (value) => value !== undefined,
      () => true
    )
    if (ended) expect(await planOf(childId)).toMatchObject({ status: 'CLOSED', closedReason: 'CANCELLED' })
  })

  it('shows no plan for a child never enrolled, and 404 for another tenant', async () => {
    const created = await platform.http.post('/v1/children', {
      token: centre.token,
      body: { firstName: 'Mia', lastName: 'Chen', dateOfBirth: await localDate(-400) },
    })
    expect(await planOf(created.body.id)).toMatchObject({ enrolled: false, status: 'NOT_STARTED', deadlines: [] })
    const other = await platform.newTenant(['children'])
    const otherToken = await platform.token(other)
    expect(
      (await platform.http.get(`/v1/children/${created.body.id}/early-intervention`, { token: otherToken })).status
    ).toBe(404)
    expect(
      (
        await platform.http.get(`/v1/children/${created.body.id}/early-intervention/notifications`, {
          token: otherToken,
        })
      ).status
    ).toBe(404)
  })
})
