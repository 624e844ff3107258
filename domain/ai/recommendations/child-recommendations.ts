/**
 * @module Loads one child's facts from the care record (goals, sessions and their notes, assessments, the
 * early-intervention enrolment, appointments, signed-note goal measures) inside the request's unit of work, so
 * row-level security confines every read to the tenant, and applies the pure rules of ./recommendation-rules.ts.
 * Reads no narrative text: notes contribute their status and their objective goal measures only.
 */
import type { UnitOfWork } from '../../../infra/unit-of-work.ts'
import { localDateOf } from '../../assessments/due-day.ts'
import { planEarlyIntervention, type Deadline } from '../../../common/early-intervention/ei-plan.ts'
import { EI_FACT_COLUMNS, eiFactsOf } from '../../early-intervention/ei-facts.ts'
import { DEFAULT_EI_POLICY } from '../../../common/early-intervention/ei-policy.ts'
import { notFound } from '../../errors.ts'
import { childInsights, type InsightNote } from '../insights/insight-rules.ts'
import { DEFAULT_PROGRESS_POLICY } from '../../../common/child-progress/progress-rules.ts'
import {
  RECOMMENDATION_RULES,
  type AppointmentFact,
  type ChildGoalFact,
  type ChildRecommendationFacts,
} from './recommendation-facts.ts'
import { recommendForChild } from './recommendation-rules.ts'
import {
  RECOMMENDATION_KINDS,
  type Recommendation,
  type RecommendationKind,
  type RecommendationPriority,
} from './recommendation-types.ts'

export interface ChildRecommendations {
  childId: string
  generatedAt: string
  /** The child's centre calendar day the date rules used. */
  today: string
  /** The cadence used for completions recorded without one. */
  defaultCadenceDays: number
  summary: {
    total: number
    byPriority: Record<RecommendationPriority, number>
    byKind: Record<RecommendationKind, number>
  }
  data: Recommendation[]
}

const ABSENT = new Set(['ABSENT_EXCUSED', 'ABSENT_UNEXCUSED', 'CANCELLED_LATE'])
const OPEN_ASSESSMENT = ['SCHEDULED', 'DUE', 'OVERDUE'] as const
const dateOf = (d: Date | null) => (d ? d.toISOString().slice(0, 10) : null)

const toAppointment = (
  a: { id: string; startsAt: Date; providerId: string; service: string } | null
): AppointmentFact | null =>
  a
    ? { appointmentId: a.id, startsAt: a.startsAt.toISOString(), providerId: a.providerId, discipline: a.service }
    : null

/** The child's past sessions as the note rule reads them, each with its location's note deadline. */
async function sessionFacts({ tx, tenantId }: UnitOfWork, childId: string, now: Date) {
  const sessions = await tx.session.findMany({
    where: { tenantId, childId, status: { not: 'CANCELLED' }, scheduledEndsAt: { lt: now } },
    select: {
      id: true,
      attendance: true,
      scheduledEndsAt: true,
      locationId: true,
      notes: { select: { id: true, status: true }, orderBy: { id: 'asc' } },
    },
    orderBy: { id: 'asc' },
  })
  const locations = await tx.location.findMany({
    where: { tenantId, id: { in: [...new Set(sessions.map((s) => s.locationId))] } },
    select: { id: true, noteDueHours: true },
  })
  const dueHoursOf = new Map(locations.map((l) => [l.id, l.noteDueHours]))
  return sessions.map((s) => ({
    sessionId: s.id,
    childId,
    scheduledEndsAt: s.scheduledEndsAt,
    // 48 h is the location default; every session has a location, so this only guards a vanished row.
    noteDueHours: dueHoursOf.get(s.locationId) ?? 48,
    hasSignedNote: s.notes.some((n) => n.status === 'SIGNED'),
    cancelled: false,
    absent: s.attendance !== null && ABSENT.has(s.attendance),
    draftNoteId: s.notes.find((n) => n.status === 'DRAFT')?.id ?? null,
  }))
}

/** The child's open and completed assessments as the assessment and recall rules read them. */
async function assessmentFacts({ tx, tenantId }: UnitOfWork, childId: string, today: string, zone: string) {
  const assessments = await tx.assessment.findMany({
    where: { tenantId, childId, status: { in: ['COMPLETED', ...OPEN_ASSESSMENT] } },
    select: {
      id: true,
      instrument: true,
      status: true,
      dueDate: true,
      completedAt: true,
      reassessmentCadenceDays: true,
      next: { select: { id: true } },
    },
  })
  const openInstruments = new Set(
    assessments.filter((a) => a.status !== 'COMPLETED').map((a) => a.instrument.toLowerCase())
  )
  return {
    openAssessments: assessments
      .filter((a) => a.status !== 'COMPLETED' && a.dueDate)
      .map((a) => ({ assessmentId: a.id, childId, instrument: a.instrument, dueDate: dateOf(a.dueDate)!, today })),
    completedAssessments: assessments
      .filter((a) => a.status === 'COMPLETED' && a.completedAt)
      .map((a) => ({
        assessmentId: a.id,
        childId,
        instrument: a.instrument,
        completedAt: a.completedAt!,
        completedOn: localDateOf(a.completedAt!, zone),
        cadenceDays: a.reassessmentCadenceDays,
        hasReassessment: a.next !== null,
        openOfInstrument: openInstruments.has(a.instrument.toLowerCase()),
      })),
  }
}

/** The progress trend of each goal, from the child's signed notes, as the insights compute it. */
async function goalInsightsOf({ tx, tenantId }: UnitOfWork, childId: string, goals: ChildGoalFact[]) {
  const notes = await tx.sessionNote.findMany({
    where: { tenantId, status: 'SIGNED', session: { childId, tenantId } },
    select: { id: true, objective: true, session: { select: { id: true, scheduledStartsAt: true } } },
  })
  return childInsights(
    goals,
    notes.map((n): InsightNote => ({
      noteId: n.id,
      sessionId: n.session.id,
      sessionAt: n.session.scheduledStartsAt.toISOString(),
      goals: (n.objective as { goals?: InsightNote['goals'] } | null)?.goals ?? [],
    })),
    [],
    DEFAULT_PROGRESS_POLICY
  ).goals
}

/** The child's next and last appointments and the disciplines its appointments delivered. */
async function appointmentFacts({ tx, tenantId }: UnitOfWork, childId: string, now: Date) {
  const appointmentSelect = { id: true, startsAt: true, providerId: true, service: true } as const
  const next = await tx.appointment.findFirst({
    where: { tenantId, childId, status: 'CONFIRMED', startsAt: { gte: now } },
    select: appointmentSelect,
    orderBy: [{ startsAt: 'asc' }, { id: 'asc' }],
  })
  const last = await tx.appointment.findFirst({
    where: { tenantId, childId, status: { not: 'CANCELLED' }, startsAt: { lt: now } },
    select: appointmentSelect,
    orderBy: [{ startsAt: 'desc' }, { id: 'desc' }],
  })
  const delivered = await tx.appointment.groupBy({
    by: ['service'],
    where: { tenantId, childId, status: { not: 'CANCELLED' } },
    _min: { id: true },
  })
  return {
    nextAppointment: toAppointment(next),
    lastAppointment: toAppointment(last),
    disciplinesDelivered: Object.fromEntries(delivered.map((d) => [d.service, d._min.id ?? ''])),
  }
}

/**
 * Loads a child's facts as of `now`.
 * @throws AppError `not_found` when the child is not the tenant's (or is archived)
 */
export async function loadRecommendationFacts(
  uow: UnitOfWork,
  childId: string,
  now: Date,
  defaultCadenceDays: number = RECOMMENDATION_RULES.defaultCadenceDays
): Promise<ChildRecommendationFacts> {
  const { tx, tenantId } = uow
  const c = await tx.child.findFirst({
    where: { id: childId, tenantId, archivedAt: null },
    select: {
      id: true,
      goals: true,
      ...EI_FACT_COLUMNS,
      location: { select: { timeZone: true } },
    },
  })
  if (!c) throw notFound('child', childId)
  const zone = c.location?.timeZone ?? 'UTC'
  const today = localDateOf(now, zone)
  const goals: ChildGoalFact[] = ((c.goals as unknown as Array<Record<string, unknown>> | null) ?? []).map((g) => ({
    id: String(g.id),
    description: typeof g.description === 'string' ? g.description : '',
    status: typeof g.status === 'string' ? g.status : 'ACTIVE',
    discipline: typeof g.discipline === 'string' ? g.discipline : null,
  }))
  // One statement at a time (one transaction): sessions, assessments, notes, then appointments.
  const sessions = await sessionFacts(uow, childId, now)
  const assessments = await assessmentFacts(uow, childId, today, zone)
  let eiDeadlines: Deadline[] = []
  if (c.eiReferralDate) {
    const plan = planEarlyIntervention(eiFactsOf(c), today, DEFAULT_EI_POLICY)
    if (plan.state === 'ACTIVE') eiDeadlines = plan.deadlines
  }
  const goalInsights = await goalInsightsOf(uow, childId, goals)
  const appointments = await appointmentFacts(uow, childId, now)
  return {
    childId,
    today,
    goals,
    sessions,
    ...assessments,
    eiDeadlines,
    goalInsights,
    ...appointments,
    defaultCadenceDays,
  }
}

/**
 * The recommendations for one child as of `now`, with a summary.
 * @throws AppError `not_found` when the child is not the tenant's
 */
export async function childRecommendations(
  uow: UnitOfWork,
  childId: string,
  now: Date,
  options: { defaultCadenceDays?: number } = {}
): Promise<ChildRecommendations> {
  const facts = await loadRecommendationFacts(uow, childId, now, options.defaultCadenceDays)
  const data = recommendForChild(facts, now)
  const byPriority: Record<RecommendationPriority, number> = { HIGH: 0, MEDIUM: 0, LOW: 0 }
  const byKind = Object.fromEntries(RECOMMENDATION_KINDS.map((k) => [k, 0])) as Record<RecommendationKind, number>
  for (const r of data) {
    byPriority[r.priority] += 1
    byKind[r.kind] += 1
  }
  return {
    childId,
    generatedAt: now.toISOString(),
    today: facts.today,
    defaultCadenceDays: facts.defaultCadenceDays,
    summary: { total: data.length, byPriority, byKind },
    data,
  }
}
