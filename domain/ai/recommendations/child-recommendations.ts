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
  recommendForChild,
  RECOMMENDATION_RULES,
  type AppointmentFact,
  type ChildGoalFact,
  type ChildRecommendationFacts,
} from './recommendation-rules.ts'
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
  const today = localDateOf(now, c.location?.timeZone ?? 'UTC')
  const goals: ChildGoalFact[] = ((c.goals as unknown as Array<Record<string, unknown>> | null) ?? []).map((g) => ({
    id: String(g.id),
    description: typeof g.description === 'string' ? g.description : '',
    status: typeof g.status === 'string' ? g.status : 'ACTIVE',
    discipline: typeof g.discipline === 'string' ? g.discipline : null,
  }))

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
  const zone = c.location?.timeZone ?? 'UTC'

  let eiDeadlines: Deadline[] = []
  if (c.eiReferralDate) {
    const plan = planEarlyIntervention(eiFactsOf(c), today, DEFAULT_EI_POLICY)
    if (plan.state === 'ACTIVE') eiDeadlines = plan.deadlines
  }

  const notes = await tx.sessionNote.findMany({
    where: { tenantId, status: 'SIGNED', session: { childId, tenantId } },
    select: { id: true, objective: true, session: { select: { id: true, scheduledStartsAt: true } } },
  })
  const insights = childInsights(
    goals,
    notes.map((n): InsightNote => ({
      noteId: n.id,
      sessionId: n.session.id,
      sessionAt: n.session.scheduledStartsAt.toISOString(),
      goals: (n.objective as { goals?: InsightNote['goals'] } | null)?.goals ?? [],
    })),
    [],
    DEFAULT_PROGRESS_POLICY
  )

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
    childId,
    today,
    goals,
    sessions: sessions.map((s) => ({
      sessionId: s.id,
      childId,
      scheduledEndsAt: s.scheduledEndsAt,
      // 48 h is the location default; every session has a location, so this only guards a vanished row.
      noteDueHours: dueHoursOf.get(s.locationId) ?? 48,
      hasSignedNote: s.notes.some((n) => n.status === 'SIGNED'),
      cancelled: false,
      absent: s.attendance !== null && ABSENT.has(s.attendance),
      draftNoteId: s.notes.find((n) => n.status === 'DRAFT')?.id ?? null,
    })),
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
    eiDeadlines,
    goalInsights: insights.goals,
    nextAppointment: toAppointment(next),
    lastAppointment: toAppointment(last),
    disciplinesDelivered: Object.fromEntries(delivered.map((d) => [d.service, d._min.id ?? ''])),
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
