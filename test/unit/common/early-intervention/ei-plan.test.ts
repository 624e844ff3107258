import { describe, expect, it } from 'vitest'
import { addDays, addMonths, daysBetween } from '../../../../common/time/calendar.ts'
import { planNow, workflowDelayUntil } from '../../../../common/early-intervention/ei-clock.ts'
import {
  noticeSettled,
  noticesWorthSending,
  planEarlyIntervention,
  type EiFacts,
} from '../../../../common/early-intervention/ei-plan.ts'
import { DEFAULT_EI_POLICY } from '../../../../common/early-intervention/ei-policy.ts'

const policy = DEFAULT_EI_POLICY
/** A toddler born 2025-01-15: third birthday 2028-01-15. */
const facts = (overrides: Partial<EiFacts> = {}): EiFacts => ({
  dateOfBirth: '2025-01-15',
  referralDate: '2026-03-02',
  initialIfspDate: null,
  lastIfspReviewDate: null,
  exitDate: null,
  archived: false,
  timelineException: null,
  ...overrides,
})
const active = (plan: ReturnType<typeof planEarlyIntervention>) => {
  if (plan.state !== 'ACTIVE') throw new Error(`plan is ${plan.state}`)
  return plan
}
const deadline = (plan: ReturnType<typeof active>, kind: string) => plan.deadlines.find((d) => d.kind === kind)
const kinds = (notices: { kind: string; on: string }[]) => notices.map((n) => `${n.kind}@${n.on}`)

describe('calendar', () => {
  it('adds months the way a calendar does, clamping to the month end', () => {
    expect(addMonths('2026-01-31', 1)).toBe('2026-02-28')
    expect(addMonths('2028-01-31', 1)).toBe('2028-02-29')
    expect(addMonths('2026-08-31', -6)).toBe('2026-02-28')
    expect(addMonths('2025-01-15', 36)).toBe('2028-01-15')
    expect(addDays('2026-03-02', 45)).toBe('2026-04-16')
    expect(daysBetween('2026-04-16', '2026-04-17')).toBe(1)
  })
})

describe('initial IFSP: 45 days from the referral (34 CFR §303.310)', () => {
  it('is due on day 45, with reminders on days 30, 40 and 44 and the breach on day 46', () => {
    const plan = active(planEarlyIntervention(facts(), '2026-03-02', policy))
    expect(deadline(plan, 'INITIAL_IFSP')).toEqual({ kind: 'INITIAL_IFSP', dueDate: '2026-04-16', status: 'OPEN' })
    expect(kinds(plan.notices.filter((n) => n.series === 'INITIAL_IFSP'))).toEqual([
      'INITIAL_IFSP_REMINDER@2026-04-01',
      'INITIAL_IFSP_REMINDER@2026-04-11',
      'INITIAL_IFSP_REMINDER@2026-04-15',
      'INITIAL_IFSP_BREACHED@2026-04-17',
    ])
    expect(plan.notices.find((n) => n.kind === 'INITIAL_IFSP_BREACHED')).toMatchObject({
      daysFromDue: 1,
      dueDate: '2026-04-16',
    })
  })

  it('is OVERDUE once day 45 has passed without the meeting, and MET / MET_LATE once it is held', () => {
    expect(deadline(active(planEarlyIntervention(facts(), '2026-04-16', policy)), 'INITIAL_IFSP')?.status).toBe('OPEN')
    expect(deadline(active(planEarlyIntervention(facts(), '2026-04-17', policy)), 'INITIAL_IFSP')?.status).toBe(
      'OVERDUE'
    )
    const onTime = active(planEarlyIntervention(facts({ initialIfspDate: '2026-04-16' }), '2026-05-01', policy))
    expect(deadline(onTime, 'INITIAL_IFSP')).toMatchObject({ status: 'MET', metOn: '2026-04-16' })
    expect(onTime.notices.some((n) => n.series === 'INITIAL_IFSP')).toBe(false)
    const late = active(planEarlyIntervention(facts({ initialIfspDate: '2026-04-20' }), '2026-05-01', policy))
    expect(deadline(late, 'INITIAL_IFSP')?.status).toBe('MET_LATE')
  })

  it('a documented exception stops the reminders and the breach (§303.310(b))', () => {
    const plan = active(
      planEarlyIntervention(facts({ timelineException: 'FAMILY_CIRCUMSTANCES' }), '2026-05-01', policy)
    )
    expect(deadline(plan, 'INITIAL_IFSP')?.status).toBe('EXCEPTED')
    expect(plan.notices.some((n) => n.series === 'INITIAL_IFSP')).toBe(false)
    const lateButExcused = active(
      planEarlyIntervention(
        facts({ initialIfspDate: '2026-05-20', timelineException: 'CONSENT_PENDING' }),
        '2026-06-01',
        policy
      )
    )
    expect(deadline(lateButExcused, 'INITIAL_IFSP')?.status).toBe('EXCEPTED')
  })

  it('a referral less than 45 days before the third birthday goes to Part B instead (§303.209(b)(1)(iii))', () => {
    const plan = active(planEarlyIntervention(facts({ referralDate: '2027-12-10' }), '2027-12-10', policy))
    expect(plan.deadlines.map((d) => d.kind)).toEqual(['PART_B_REFERRAL', 'EXIT'])
    expect(plan.notices[0]).toMatchObject({ kind: 'LATE_REFERRAL', on: '2027-12-10' })
  })
})

describe('IFSP meetings after the initial one (§303.342)', () => {
  it('has the periodic review 6 months after the latest meeting and the annual meeting on the anniversary', () => {
    const plan = active(planEarlyIntervention(facts({ initialIfspDate: '2026-04-10' }), '2026-05-01', policy))
    expect(deadline(plan, 'PERIODIC_REVIEW')).toMatchObject({ dueDate: '2026-10-10', status: 'OPEN' })
    expect(deadline(plan, 'ANNUAL_MEETING')).toMatchObject({ dueDate: '2027-04-10', status: 'OPEN' })
    expect(kinds(plan.notices.filter((n) => n.series === 'PERIODIC_REVIEW'))).toEqual([
      'REVIEW_REMINDER@2026-09-10',
      'REVIEW_REMINDER@2026-09-26',
      'REVIEW_REMINDER@2026-10-03',
      'REVIEW_OVERDUE@2026-10-11',
    ])
  })

  it('moves the review when one is held, and drops a review the annual meeting covers', () => {
    const afterReview = active(
      planEarlyIntervention(
        facts({ initialIfspDate: '2026-04-10', lastIfspReviewDate: '2026-10-05' }),
        '2026-10-06',
        policy
      )
    )
    // The next review (2027-04-05) would fall before the annual meeting (2027-04-10): both are due.
    expect(deadline(afterReview, 'PERIODIC_REVIEW')?.dueDate).toBe('2027-04-05')
    expect(deadline(afterReview, 'ANNUAL_MEETING')?.dueDate).toBe('2027-04-10')
    const reviewLate = active(
      planEarlyIntervention(
        facts({ initialIfspDate: '2026-04-10', lastIfspReviewDate: '2026-10-20' }),
        '2026-10-21',
        policy
      )
    )
    expect(deadline(reviewLate, 'PERIODIC_REVIEW')).toBeUndefined()
    expect(deadline(reviewLate, 'ANNUAL_MEETING')?.dueDate).toBe('2027-04-10')
  })

  it('counts a meeting held up to 3 months before the anniversary as the annual meeting', () => {
    const heldEarly = active(
      planEarlyIntervention(
        facts({ initialIfspDate: '2026-04-10', lastIfspReviewDate: '2027-03-01' }),
        '2027-03-02',
        policy
      )
    )
    expect(deadline(heldEarly, 'ANNUAL_MEETING')).toBeUndefined()
    // The second anniversary falls after the third birthday: no annual meeting is left, the review is due.
    expect(deadline(heldEarly, 'PERIODIC_REVIEW')?.dueDate).toBe('2027-09-01')
    const overdue = active(
      planEarlyIntervention(
        facts({ initialIfspDate: '2026-04-10', lastIfspReviewDate: '2026-10-05' }),
        '2027-04-11',
        policy
      )
    )
    expect(deadline(overdue, 'ANNUAL_MEETING')?.status).toBe('OVERDUE')
  })
})

describe('transition and exit (§303.209)', () => {
  it('opens the window 9 months before the third birthday and makes the plan due 90 days before it', () => {
    const plan = active(planEarlyIntervention(facts(), '2026-03-02', policy))
    expect(deadline(plan, 'TRANSITION_PLAN')).toEqual({
      kind: 'TRANSITION_PLAN',
      dueDate: '2027-10-17',
      windowOpensOn: '2027-04-15',
      status: 'OPEN',
    })
    expect(kinds(plan.notices.filter((n) => n.series === 'TRANSITION_PLAN'))).toEqual([
      'TRANSITION_WINDOW_OPEN@2027-04-15',
      'TRANSITION_REMINDER@2027-09-17',
      'TRANSITION_REMINDER@2027-10-03',
      'TRANSITION_REMINDER@2027-10-10',
      'TRANSITION_DUE@2027-10-17',
    ])
    expect(deadline(plan, 'EXIT')).toMatchObject({ dueDate: '2028-01-15', status: 'OPEN' })
    expect(deadline(active(planEarlyIntervention(facts(), '2027-10-18', policy)), 'TRANSITION_PLAN')?.status).toBe(
      'PASSED'
    )
  })
})

describe('family check-ins', () => {
  it('falls monthly from the referral until the third birthday, and the next one is shown', () => {
    const plan = active(planEarlyIntervention(facts(), '2026-04-05', policy))
    const checkIns = plan.notices.filter((n) => n.kind === 'FAMILY_CHECK_IN')
    expect(checkIns[0]?.on).toBe('2026-04-02')
    expect(checkIns.at(-1)?.on).toBe('2028-01-02')
    expect(checkIns).toHaveLength(22)
    expect(plan.nextCheckIn).toBe('2026-05-02')
  })
})

describe('closing', () => {
  it('closes for an archived, unenrolled or exited child; a planned exit ends the notices on that day', () => {
    expect(planEarlyIntervention(facts({ archived: true }), '2026-03-02', policy)).toEqual({
      state: 'CLOSED',
      reason: 'ARCHIVED',
    })
    expect(planEarlyIntervention(facts({ referralDate: null }), '2026-03-02', policy)).toEqual({
      state: 'CLOSED',
      reason: 'NOT_ENROLLED',
    })
    expect(planEarlyIntervention(facts({ exitDate: '2026-03-10' }), '2026-03-10', policy)).toEqual({
      state: 'CLOSED',
      reason: 'EXITED',
    })
    const planned = active(planEarlyIntervention(facts({ exitDate: '2026-05-10' }), '2026-03-10', policy))
    expect(planned.notices.every((n) => n.on < '2026-05-10')).toBe(true)
  })
})

describe('catching up', () => {
  it('drops stale reminders but announces the missed deadline and the latest check-in once', () => {
    const plan = active(planEarlyIntervention(facts(), '2026-05-20', policy))
    const worth = noticesWorthSending(plan.notices, '2026-05-20', policy).filter((n) => n.on <= '2026-05-20')
    expect(kinds(worth)).toEqual(['INITIAL_IFSP_BREACHED@2026-04-17', 'FAMILY_CHECK_IN@2026-05-02'])
  })

  it('still sends a reminder up to catchUpDays late (a worker that was down for a day)', () => {
    const plan = active(planEarlyIntervention(facts(), '2026-04-03', policy))
    const due = noticesWorthSending(plan.notices, '2026-04-03', policy).filter((n) => n.on <= '2026-04-03')
    expect(kinds(due)).toEqual(['INITIAL_IFSP_REMINDER@2026-04-01', 'FAMILY_CHECK_IN@2026-04-02'])
    const tooLate = noticesWorthSending(plan.notices, '2026-04-05', policy).filter((n) => n.on <= '2026-04-05')
    expect(kinds(tooLate)).toEqual(['FAMILY_CHECK_IN@2026-04-02'])
  })
})

describe('settling earlier notices', () => {
  it('settles reminders of a met or moved deadline, keeps those of an open one', () => {
    const met = active(planEarlyIntervention(facts({ initialIfspDate: '2026-04-10' }), '2026-04-12', policy))
    expect(noticeSettled(met, 'INITIAL_IFSP', '2026-04-16')).toBe(true)
    const open = active(planEarlyIntervention(facts(), '2026-04-12', policy))
    expect(noticeSettled(open, 'INITIAL_IFSP', '2026-04-16')).toBe(false)
    expect(noticeSettled(open, 'INITIAL_IFSP', '2026-04-20')).toBe(true)
    expect(noticeSettled(open, 'CHECK_IN', '2026-04-02')).toBe(false)
  })
})

describe('plan clock', () => {
  it('runs plan time faster by the day ratio and converts plan instants back into workflow delays', () => {
    const clock = { originMs: 1_000_000, dayMs: 1000 }
    expect(planNow(clock, 1_000_000)).toBe(1_000_000)
    expect(planNow(clock, 1_001_000)).toBe(1_000_000 + 86_400_000)
    expect(workflowDelayUntil(clock, 1_001_000, 1_000_000 + 2 * 86_400_000)).toBe(1000)
    expect(workflowDelayUntil(clock, 1_001_000, 1_000_000)).toBe(0)
    expect(planNow({ originMs: 5, dayMs: 86_400_000 }, 12345)).toBe(12345)
  })
})
