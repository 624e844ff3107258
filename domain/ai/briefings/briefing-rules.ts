/**
 * @module The care-coordinator agent's rules as pure functions: which facts of the care record need a person's
 * attention now, why, by when and how urgently. Every item names the rule that raised it (`kind`), a sentence a
 * coordinator can check against the record (`reason`) and the `/v1` paths of the records behind it, so the briefing is
 * explainable and the same facts always give the same briefing. Unit-tested in test/unit/domain/ai/briefings/briefing-rules.test.ts.
 */
import type { Deadline } from '../../../common/early-intervention/ei-plan.ts'
import { daysBetween } from '../../../common/time/calendar.ts'

export type BriefingKind =
  'UNSIGNED_NOTE' | 'OVERDUE_ASSESSMENT' | 'ASSESSMENT_DUE_SOON' | 'EI_DEADLINE' | 'NO_UPCOMING_SESSION'
export type Priority = 'HIGH' | 'MEDIUM' | 'LOW'

export interface BriefingItem {
  /** Stable identity: the rule and the record it is about. */
  id: string
  kind: BriefingKind
  priority: Priority
  reason: string
  /** When the thing is or was due: an instant (UTC, Z) for notes, a calendar date for assessments and deadlines. */
  dueAt: string
  childId: string
  links: Record<string, string>
}

/** Thresholds of the rules, named so the documentation and the tests can refer to them. */
export const BRIEFING_RULES = {
  /** An unsigned note this many hours past its due time is HIGH, otherwise MEDIUM. */
  noteHighAfterHours: 72,
  /** Assessments due within this many days (not yet overdue) are listed as LOW. */
  assessmentDueSoonDays: 7,
  /** Open early-intervention deadlines within this many days are listed as MEDIUM (overdue ones are HIGH). */
  eiLookaheadDays: 30,
} as const

const HOUR_MS = 3_600_000

export interface SessionFact {
  sessionId: string
  childId: string
  scheduledEndsAt: Date
  /** The location's `noteDueHours`. */
  noteDueHours: number
  hasSignedNote: boolean
  cancelled: boolean
  /** ABSENT_* / CANCELLED_LATE sessions need no SOAP note. */
  absent: boolean
}

/** A session whose note is due (end + the location's noteDueHours) before `now` and is not signed. */
export function unsignedNoteItem(s: SessionFact, now: Date): BriefingItem | undefined {
  if (s.cancelled || s.absent || s.hasSignedNote) return undefined
  const due = new Date(s.scheduledEndsAt.getTime() + s.noteDueHours * HOUR_MS)
  if (due.getTime() >= now.getTime()) return undefined
  const hoursLate = Math.floor((now.getTime() - due.getTime()) / HOUR_MS)
  return {
    id: `UNSIGNED_NOTE:${s.sessionId}`,
    kind: 'UNSIGNED_NOTE',
    priority: hoursLate >= BRIEFING_RULES.noteHighAfterHours ? 'HIGH' : 'MEDIUM',
    reason: `The SOAP note of the session that ended ${s.scheduledEndsAt.toISOString()} is not signed; it was due ${s.noteDueHours} h after the session (${hoursLate} h ago).`,
    dueAt: due.toISOString(),
    childId: s.childId,
    links: {
      session: `/v1/sessions/${s.sessionId}`,
      notes: `/v1/sessions/${s.sessionId}/notes`,
      child: `/v1/children/${s.childId}`,
    },
  }
}

export interface AssessmentFact {
  assessmentId: string
  childId: string
  instrument: string
  /** YYYY-MM-DD */
  dueDate: string
  /** The child's centre calendar day today, YYYY-MM-DD. */
  today: string
}

/** An open (not completed, not cancelled) assessment past its due date (HIGH) or due within the look-ahead (LOW). */
export function assessmentItem(a: AssessmentFact): BriefingItem | undefined {
  const daysLeft = daysBetween(a.today, a.dueDate)
  const links = { assessment: `/v1/assessments/${a.assessmentId}`, child: `/v1/children/${a.childId}` }
  if (daysLeft < 0) {
    return {
      id: `OVERDUE_ASSESSMENT:${a.assessmentId}`,
      kind: 'OVERDUE_ASSESSMENT',
      priority: 'HIGH',
      reason: `The ${a.instrument} assessment was due ${a.dueDate} (${-daysLeft} days ago) and is not completed.`,
      dueAt: a.dueDate,
      childId: a.childId,
      links,
    }
  }
  if (daysLeft > BRIEFING_RULES.assessmentDueSoonDays) return undefined
  return {
    id: `ASSESSMENT_DUE_SOON:${a.assessmentId}`,
    kind: 'ASSESSMENT_DUE_SOON',
    priority: 'LOW',
    reason: `The ${a.instrument} assessment is due ${a.dueDate} (in ${daysLeft} days).`,
    dueAt: a.dueDate,
    childId: a.childId,
    links,
  }
}

/** An early-intervention deadline of the child's plan that is overdue (HIGH) or open and close (MEDIUM). */
export function eiDeadlineItem(childId: string, d: Deadline, today: string): BriefingItem | undefined {
  const links = { earlyIntervention: `/v1/children/${childId}/early-intervention`, child: `/v1/children/${childId}` }
  const id = `EI_DEADLINE:${childId}:${d.kind}:${d.dueDate}`
  if (d.status === 'OVERDUE') {
    return {
      id,
      kind: 'EI_DEADLINE',
      priority: 'HIGH',
      reason: `The early-intervention ${d.kind} deadline of ${d.dueDate} has passed without being met.`,
      dueAt: d.dueDate,
      childId,
      links,
    }
  }
  if (d.status !== 'OPEN') return undefined
  const daysLeft = daysBetween(today, d.dueDate)
  if (daysLeft > BRIEFING_RULES.eiLookaheadDays) return undefined
  return {
    id,
    kind: 'EI_DEADLINE',
    priority: 'MEDIUM',
    reason: `The early-intervention ${d.kind} deadline is ${d.dueDate} (in ${daysLeft} days).`,
    dueAt: d.dueDate,
    childId,
    links,
  }
}

export interface SchedulingFact {
  childId: string
  /** The start of the child's next confirmed appointment after now, if any. */
  nextAppointmentAt: Date | null
  /** The start of the child's latest appointment before now that was not cancelled, if any. */
  lastAppointmentAt: Date | null
}

/** An active child with no confirmed appointment ahead: LOW, due now. */
export function noUpcomingSessionItem(f: SchedulingFact, now: Date): BriefingItem | undefined {
  if (f.nextAppointmentAt) return undefined
  const reason = f.lastAppointmentAt
    ? `No appointment is booked after the last one on ${f.lastAppointmentAt.toISOString()}.`
    : 'The child has never had an appointment booked.'
  return {
    id: `NO_UPCOMING_SESSION:${f.childId}`,
    kind: 'NO_UPCOMING_SESSION',
    priority: 'LOW',
    reason,
    dueAt: now.toISOString(),
    childId: f.childId,
    links: { child: `/v1/children/${f.childId}`, book: '/v1/appointments' },
  }
}

const PRIORITY_RANK: Record<Priority, number> = { HIGH: 0, MEDIUM: 1, LOW: 2 }

/** Most urgent first; then earliest due; then by id so equal items always come in the same order. */
export function orderBriefing(items: BriefingItem[]): BriefingItem[] {
  // Calendar dates sort as their UTC midnight against instants: close enough for ordering, and deterministic.
  const at = (i: BriefingItem) => Date.parse(i.dueAt.length === 10 ? `${i.dueAt}T00:00:00Z` : i.dueAt)
  return [...items].sort(
    (a, b) =>
      PRIORITY_RANK[a.priority] - PRIORITY_RANK[b.priority] || at(a) - at(b) || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0)
  )
}
