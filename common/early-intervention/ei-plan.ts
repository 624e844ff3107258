/**
 * @module A child's early-intervention plan as a pure function of the enrolment dates and today: the deadlines of the
 * IDEA Part C clocks (initial IFSP within 45 days of the referral, periodic review every 6 months, annual meeting,
 * transition planning at least 90 days before the third birthday, exit at three) with their status, the family
 * check-ins between them, and the notices the check-in workflow raises around them (docs/domain.md, 'Early-intervention reminders').
 *
 * The enrolment record keeps only the latest IFSP meeting date, so the annual meeting is counted on the anniversaries
 * of the initial IFSP: a meeting held up to `annualHeldEarlyMonths` before an anniversary (or after it) is that
 * year's annual meeting. Transition planning and the exit are not recorded as done anywhere, so their deadlines are
 * reminders: PASSED after the date, never MET.
 *
 * Free of Node imports: pure functions only, unit-tested in test/unit/common/early-intervention/ei-plan.test.ts.
 */
import { addDays, addMonths, daysBetween } from '../time/calendar.ts'
import type { EiPolicy } from './ei-policy.ts'
import {} from '../time/calendar.ts'

export type TimelineException = 'FAMILY_CIRCUMSTANCES' | 'CONSENT_PENDING'

/** What the plan is computed from: the child's `ei_*` columns, date of birth and the recorded 45-day exception. */
export interface EiFacts {
  dateOfBirth: string
  /** Null when the child is not (or no longer) enrolled. */
  referralDate: string | null
  initialIfspDate: string | null
  lastIfspReviewDate: string | null
  exitDate: string | null
  archived: boolean
  timelineException: TimelineException | null
}

export type DeadlineKind =
  'INITIAL_IFSP' | 'PART_B_REFERRAL' | 'PERIODIC_REVIEW' | 'ANNUAL_MEETING' | 'TRANSITION_PLAN' | 'EXIT'

/**
 * OPEN: not yet due; OVERDUE: due and not met; MET / MET_LATE: held on time / after the limit; EXCEPTED: a documented
 * exception (§303.310(b)) covers it; PASSED: the date went by (nothing in the record says whether it was done).
 */
export type DeadlineStatus = 'OPEN' | 'OVERDUE' | 'MET' | 'MET_LATE' | 'EXCEPTED' | 'PASSED'

export interface Deadline {
  kind: DeadlineKind
  dueDate: string
  status: DeadlineStatus
  /** When a window opens before the due date (transition planning). */
  windowOpensOn?: string
  metOn?: string
}

export type NoticeKind =
  | 'INITIAL_IFSP_REMINDER'
  | 'INITIAL_IFSP_BREACHED'
  | 'LATE_REFERRAL'
  | 'REVIEW_REMINDER'
  | 'REVIEW_OVERDUE'
  | 'ANNUAL_REMINDER'
  | 'ANNUAL_OVERDUE'
  | 'TRANSITION_WINDOW_OPEN'
  | 'TRANSITION_REMINDER'
  | 'TRANSITION_DUE'
  | 'EXIT_DUE'
  | 'FAMILY_CHECK_IN'

/** A notice the workflow records on a day: a reminder before a deadline, the notice of a missed one, a check-in. */
export interface Notice {
  kind: NoticeKind
  /** The deadline it is about; CHECK_IN for family check-ins. */
  series: DeadlineKind | 'CHECK_IN'
  /** The day it goes out. */
  on: string
  /** The deadline's date (the check-in's own date for check-ins). */
  dueDate: string
  /** `on` relative to `dueDate`: −30 for a reminder 30 days before, 1 for the day after a missed deadline. */
  daysFromDue: number
  /** Identity within the child's plan: what the workflow and the notification table deduplicate on. */
  key: string
}

export type ClosedReason = 'NOT_ENROLLED' | 'EXITED' | 'ARCHIVED'

export type EiPlan =
  | { state: 'CLOSED'; reason: ClosedReason }
  | {
      state: 'ACTIVE'
      deadlines: Deadline[]
      /** The next family check-in on or after today; null past the third birthday. */
      nextCheckIn: string | null
      /** Every notice of the enrolment, in the order they go out (before catch-up filtering). */
      notices: Notice[]
    }

/** Notices that announce something a person must act on even when raised late; reminders are dropped when stale. */
const ANNOUNCE_EVEN_LATE = new Set<NoticeKind>([
  'INITIAL_IFSP_BREACHED',
  'LATE_REFERRAL',
  'REVIEW_OVERDUE',
  'ANNUAL_OVERDUE',
  'TRANSITION_WINDOW_OPEN',
  'TRANSITION_DUE',
  'EXIT_DUE',
  'FAMILY_CHECK_IN',
])

const notice = (kind: NoticeKind, series: Notice['series'], on: string, dueDate: string): Notice => {
  const daysFromDue = daysBetween(dueDate, on)
  return { kind, series, on, dueDate, daysFromDue, key: `${kind}:${dueDate}:${daysFromDue}` }
}

/** Reminders `daysBefore` a due date (each at most once, earliest first) and, optionally, the notice of missing it. */
function around(
  series: DeadlineKind,
  dueDate: string,
  reminder: NoticeKind,
  daysBefore: number[],
  missed?: NoticeKind
): Notice[] {
  const reminders = [...new Set(daysBefore)]
    .filter((d) => d > 0)
    .sort((a, b) => b - a)
    .map((d) => notice(reminder, series, addDays(dueDate, -d), dueDate))
  return missed ? [...reminders, notice(missed, series, addDays(dueDate, 1), dueDate)] : reminders
}

/** A deadline met by `metOn` (or not yet), as of `today`. */
const statusOf = (dueDate: string, today: string): DeadlineStatus => (today > dueDate ? 'OVERDUE' : 'OPEN')

/**
 * The first anniversary of the initial IFSP whose annual meeting has not been held, judged by the latest meeting.
 */
function nextAnnualMeeting(initialIfsp: string, latestMeeting: string, policy: EiPolicy): string {
  for (let year = 1; ; year++) {
    const anniversary = addMonths(initialIfsp, year * policy.annualMonths)
    if (latestMeeting < addMonths(anniversary, -policy.annualHeldEarlyMonths)) return anniversary
  }
}

function initialIfspClock(facts: EiFacts & { referralDate: string }, today: string, policy: EiPolicy) {
  const dueDate = addDays(facts.referralDate, policy.initialIfspDays)
  const met = facts.initialIfspDate
  const excepted = facts.timelineException !== null
  const status: DeadlineStatus = met
    ? met <= dueDate
      ? 'MET'
      : excepted
        ? 'EXCEPTED'
        : 'MET_LATE'
    : excepted
      ? 'EXCEPTED'
      : statusOf(dueDate, today)
  const deadline: Deadline = { kind: 'INITIAL_IFSP', dueDate, status, ...(met ? { metOn: met } : {}) }
  // Reminders and the breach only while the meeting is outstanding and no exception stops the clock.
  const notices =
    met || excepted
      ? []
      : [
          ...[...new Set(policy.initialIfspReminderDays)]
            .filter((d) => d > 0 && d < policy.initialIfspDays)
            .sort((a, b) => a - b)
            .map((d) => notice('INITIAL_IFSP_REMINDER', 'INITIAL_IFSP', addDays(facts.referralDate, d), dueDate)),
          notice('INITIAL_IFSP_BREACHED', 'INITIAL_IFSP', addDays(dueDate, 1), dueDate),
        ]
  return { deadline, notices }
}

/** The periodic review and annual meeting after the initial IFSP, both ending at the third birthday. */
function ifspMeetings(initialIfsp: string, latest: string, thirdBirthday: string, today: string, policy: EiPolicy) {
  const deadlines: Deadline[] = []
  const notices: Notice[] = []
  const annual = nextAnnualMeeting(initialIfsp, latest, policy)
  const review = addMonths(latest, policy.reviewMonths)
  if (annual < thirdBirthday) {
    deadlines.push({ kind: 'ANNUAL_MEETING', dueDate: annual, status: statusOf(annual, today) })
    notices.push(...around('ANNUAL_MEETING', annual, 'ANNUAL_REMINDER', policy.meetingReminderDays, 'ANNUAL_OVERDUE'))
  }
  // A review due on or after the annual meeting is covered by it.
  if (review < annual && review < thirdBirthday) {
    deadlines.push({ kind: 'PERIODIC_REVIEW', dueDate: review, status: statusOf(review, today) })
    notices.push(...around('PERIODIC_REVIEW', review, 'REVIEW_REMINDER', policy.meetingReminderDays, 'REVIEW_OVERDUE'))
  }
  return { deadlines, notices }
}

function transition(thirdBirthday: string, today: string, policy: EiPolicy) {
  const dueDate = addDays(thirdBirthday, -policy.transitionDueDays)
  const windowOpensOn = addMonths(thirdBirthday, -policy.transitionWindowMonths)
  const deadline: Deadline = {
    kind: 'TRANSITION_PLAN',
    dueDate,
    windowOpensOn,
    status: today > dueDate ? 'PASSED' : 'OPEN',
  }
  const notices = [
    notice('TRANSITION_WINDOW_OPEN', 'TRANSITION_PLAN', windowOpensOn, dueDate),
    ...around('TRANSITION_PLAN', dueDate, 'TRANSITION_REMINDER', policy.transitionReminderDays).filter(
      (n) => n.on > windowOpensOn
    ),
    notice('TRANSITION_DUE', 'TRANSITION_PLAN', dueDate, dueDate),
  ]
  return { deadline, notices }
}

function checkIns(referralDate: string, thirdBirthday: string, policy: EiPolicy): Notice[] {
  const out: Notice[] = []
  if (policy.checkInEveryMonths <= 0) return out
  for (let n = 1; ; n++) {
    const on = addMonths(referralDate, n * policy.checkInEveryMonths)
    if (on >= thirdBirthday) return out
    out.push(notice('FAMILY_CHECK_IN', 'CHECK_IN', on, on))
  }
}

const byDay = (a: Notice, b: Notice) => (a.on < b.on ? -1 : a.on > b.on ? 1 : 0)

/**
 * The plan of an enrolment as of `today`.
 * @param facts - the child's enrolment dates and recorded exception
 * @param today - the centre's calendar day (the workflow's, which tests may run fast)
 * @param policy - the clock's numbers (DEFAULT_EI_POLICY unless a state's rules say otherwise)
 */
export function planEarlyIntervention(facts: EiFacts, today: string, policy: EiPolicy): EiPlan {
  if (facts.archived) return { state: 'CLOSED', reason: 'ARCHIVED' }
  if (facts.referralDate === null) return { state: 'CLOSED', reason: 'NOT_ENROLLED' }
  if (facts.exitDate !== null && facts.exitDate <= today) return { state: 'CLOSED', reason: 'EXITED' }
  const enrolment = { ...facts, referralDate: facts.referralDate }
  const thirdBirthday = addMonths(facts.dateOfBirth, 36)
  const deadlines: Deadline[] = []
  const notices: Notice[] = []

  if (facts.referralDate >= addDays(thirdBirthday, -policy.lateReferralDays)) {
    // Too close to three for a Part C evaluation: the lead agency refers the child to Part B instead.
    deadlines.push({ kind: 'PART_B_REFERRAL', dueDate: facts.referralDate, status: 'OPEN' })
    notices.push(notice('LATE_REFERRAL', 'PART_B_REFERRAL', facts.referralDate, facts.referralDate))
  } else {
    const initial = initialIfspClock(enrolment, today, policy)
    deadlines.push(initial.deadline)
    notices.push(...initial.notices)
    if (facts.initialIfspDate) {
      const latest = facts.lastIfspReviewDate ?? facts.initialIfspDate
      const meetings = ifspMeetings(facts.initialIfspDate, latest, thirdBirthday, today, policy)
      deadlines.push(...meetings.deadlines)
      notices.push(...meetings.notices)
    }
    const planning = transition(thirdBirthday, today, policy)
    deadlines.push(planning.deadline)
    notices.push(...planning.notices)
  }
  deadlines.push({ kind: 'EXIT', dueDate: thirdBirthday, status: today >= thirdBirthday ? 'PASSED' : 'OPEN' })
  notices.push(notice('EXIT_DUE', 'EXIT', thirdBirthday, thirdBirthday))
  const visits = checkIns(facts.referralDate, thirdBirthday, policy)
  notices.push(...visits)

  deadlines.sort((a, b) => (a.dueDate < b.dueDate ? -1 : a.dueDate > b.dueDate ? 1 : 0))
  return {
    state: 'ACTIVE',
    deadlines,
    nextCheckIn: visits.find((v) => v.on >= today)?.on ?? null,
    // A planned exit ends the plan on that day (the first reload on or after it closes the workflow).
    notices: notices.filter((n) => facts.exitDate === null || n.on < facts.exitDate).sort(byDay),
  }
}

/**
 * The notices still worth sending as of `today`: every future one, and of the past ones those at most
 * `catchUpDays` late plus, per deadline, the latest past notice that announces something to act on (a missed
 * deadline, an opened window, the latest check-in). So an enrolment entered late, or a worker that was down, yields
 * one breach notice and one check-in, not a backlog of stale reminders.
 * @param notices - a plan's notices, in order
 */
export function noticesWorthSending(notices: Notice[], today: string, policy: EiPolicy): Notice[] {
  const latestPast = new Map<string, Notice>()
  for (const n of notices) if (n.on <= today && ANNOUNCE_EVEN_LATE.has(n.kind)) latestPast.set(n.series, n)
  const kept = new Set(latestPast.values())
  return notices.filter((n) => n.on > today || daysBetween(n.on, today) <= policy.catchUpDays || kept.has(n))
}

/**
 * Whether an earlier notice about (`series`, `dueDate`) no longer asks anyone to act: its deadline was met or
 * excepted, or moved to another date (a new review resets the next one). Check-ins are superseded by the next one,
 * which the recording step settles.
 */
export function noticeSettled(plan: Extract<EiPlan, { state: 'ACTIVE' }>, series: string, dueDate: string): boolean {
  if (series === 'CHECK_IN') return false
  const deadline = plan.deadlines.find((d) => d.kind === series && d.dueDate === dueDate)
  return !deadline || deadline.status === 'MET' || deadline.status === 'MET_LATE' || deadline.status === 'EXCEPTED'
}
