/**
 * @module The recommendation rules as pure functions of one child's facts: what to do next for the child, why, and
 * which API call does it. They reuse the rules other features already decide by (the care-coordinator's note,
 * assessment and early-intervention rules, the recall rule, the progress trend) so a recommendation never disagrees
 * with the briefing, the recall or the insights. Deterministic: the same facts give the same list, in the same order.
 * Unit-tested in test/unit/domain/ai/recommendations/recommendation-rules.test.ts.
 */
import {
  assessmentItem,
  eiDeadlineItem,
  unsignedNoteItem,
  type AssessmentFact,
  type SessionFact,
} from '../briefings/briefing-rules.ts'
import type { Deadline } from '../../../common/early-intervention/ei-plan.ts'
import type { GoalInsight } from '../insights/insight-rules.ts'
import { recallsDue, type CompletedFact } from '../assessment-recall/recall-rules.ts'
import type { Recommendation, RecommendationKind, RecommendationPriority } from './recommendation-types.ts'

/** Thresholds of the rules that are not the reused ones', named so docs and tests can refer to them. */
export const RECOMMENDATION_RULES = {
  /** Re-assessments due within this many days are recommended (the recall's default horizon). */
  reassessmentHorizonDays: 14,
  /**
   * Cadence for a completed assessment recorded without one (an assessment with its own cadence gets its successor
   * when it is completed, which COMPLETE_ASSESSMENT then follows). 180 days: the common payer re-testing interval.
   */
  defaultCadenceDays: 180,
} as const

/** The rule of each kind, in words: the `explanation.rule` of every recommendation of that kind. */
export const RULES: Record<RecommendationKind, string> = {
  SIGN_NOTE:
    "A session that was not cancelled and the child attended needs a signed SOAP note by its end + the location's noteDueHours.",
  COMPLETE_ASSESSMENT: 'An open assessment past its due date, or due within 7 days, should be completed.',
  SCHEDULE_REASSESSMENT:
    "The child's latest completed assessment of an instrument is due again at completion + cadence (its own, else the default, 180 days unless the request says otherwise); recommend the recall from 14 days before, unless it has a re-assessment or another assessment of that instrument is open.",
  EI_DEADLINE:
    'An early-intervention deadline (IDEA Part C) that has passed unmet, or is open and within 30 days, needs the meeting or plan it names.',
  ADJUST_GOAL:
    'An active goal whose accuracy trend over the last sessions (signed notes) is STALLED or DECLINING by the progress rules should be reviewed.',
  BOOK_NEXT_SESSION: 'A child with active goals and no confirmed appointment ahead needs the next session booked.',
  OFFER_THERAPISTS:
    'A child with an active goal in a discipline that no appointment of the child (cancelled ones aside) has delivered needs a therapist of that discipline offered.',
}

export interface ChildGoalFact {
  id: string
  description: string
  status: string
  discipline: string | null
}

export interface AppointmentFact {
  appointmentId: string
  startsAt: string
  providerId: string
  discipline: string
}

/** Everything the rules read about one child, loaded by ./child-recommendations.ts. */
export interface ChildRecommendationFacts {
  childId: string
  /** The child's centre calendar day, YYYY-MM-DD. */
  today: string
  goals: ChildGoalFact[]
  /** Sessions whose end is past, with the id of a draft note when there is one (to sign it). */
  sessions: Array<SessionFact & { draftNoteId: string | null }>
  openAssessments: AssessmentFact[]
  completedAssessments: CompletedFact[]
  /** Deadlines of an ACTIVE early-intervention plan; empty when the child is not enrolled. */
  eiDeadlines: Deadline[]
  goalInsights: GoalInsight[]
  nextAppointment: AppointmentFact | null
  lastAppointment: AppointmentFact | null
  /** Every discipline the child's appointments (cancelled ones aside) delivered, with one appointment of each. */
  disciplinesDelivered: Record<string, string>
  /** Cadence for completions recorded without one. */
  defaultCadenceDays: number
}

const child = (id: string) => `/v1/children/${id}`

function signNotes(f: ChildRecommendationFacts, now: Date): Recommendation[] {
  return f.sessions.flatMap((s) => {
    const item = unsignedNoteItem(s, now)
    if (!item) return []
    const sign = s.draftNoteId
      ? {
          method: 'POST' as const,
          path: `/v1/sessions/${s.sessionId}/notes/${s.draftNoteId}/sign`,
          description: 'Sign the draft note',
        }
      : {
          method: 'POST' as const,
          path: `/v1/sessions/${s.sessionId}/notes`,
          description: 'Write the note (then sign it)',
        }
    return [
      {
        id: `SIGN_NOTE:${s.sessionId}`,
        kind: 'SIGN_NOTE' as const,
        priority: item.priority,
        title: s.draftNoteId
          ? 'Sign the draft SOAP note of this session'
          : 'Write and sign the SOAP note of this session',
        explanation: {
          rule: RULES.SIGN_NOTE,
          reason: item.reason,
          facts: [
            { name: 'sessionEndedAt', value: s.scheduledEndsAt.toISOString(), source: `/v1/sessions/${s.sessionId}` },
            { name: 'noteDueHours', value: s.noteDueHours },
            { name: 'noteDueAt', value: item.dueAt },
            {
              name: 'draftNoteId',
              value: s.draftNoteId,
              ...(s.draftNoteId ? { source: `/v1/sessions/${s.sessionId}/notes/${s.draftNoteId}` } : {}),
            },
          ],
        },
        links: item.links,
        suggestedCall: { ...sign, scope: 'sessions' },
        dueAt: item.dueAt,
      },
    ]
  })
}

function completeAssessments(f: ChildRecommendationFacts): Recommendation[] {
  return f.openAssessments.flatMap((a) => {
    const item = assessmentItem(a)
    if (!item) return []
    return [
      {
        id: `COMPLETE_ASSESSMENT:${a.assessmentId}`,
        kind: 'COMPLETE_ASSESSMENT' as const,
        priority: item.priority === 'HIGH' ? ('HIGH' as const) : ('MEDIUM' as const),
        title: `Complete the ${a.instrument} assessment`,
        explanation: {
          rule: RULES.COMPLETE_ASSESSMENT,
          reason: item.reason,
          facts: [
            { name: 'instrument', value: a.instrument, source: `/v1/assessments/${a.assessmentId}` },
            { name: 'dueDate', value: a.dueDate, source: `/v1/assessments/${a.assessmentId}` },
            { name: 'today', value: a.today },
          ],
        },
        links: item.links,
        suggestedCall: {
          method: 'POST' as const,
          path: `/v1/assessments/${a.assessmentId}/complete`,
          scope: 'assessments',
          description: 'Record the scores',
        },
        dueAt: a.dueDate,
      },
    ]
  })
}

function scheduleReassessments(f: ChildRecommendationFacts): Recommendation[] {
  return recallsDue(
    f.completedAssessments,
    f.today,
    RECOMMENDATION_RULES.reassessmentHorizonDays,
    f.defaultCadenceDays
  ).map((r) => {
    const completed = f.completedAssessments.find((c) => c.assessmentId === r.assessmentId)!
    return {
      id: `SCHEDULE_REASSESSMENT:${r.assessmentId}`,
      kind: 'SCHEDULE_REASSESSMENT' as const,
      priority: r.overdue ? ('HIGH' as const) : ('MEDIUM' as const),
      title: `Schedule the ${r.instrument} re-assessment`,
      explanation: {
        rule: RULES.SCHEDULE_REASSESSMENT,
        reason: `The ${r.instrument} assessment completed ${completed.completedOn} has a ${r.cadenceDays}-day cadence${completed.cadenceDays === null ? ' (the default)' : ''}, so the re-assessment is due ${r.dueDate}${r.overdue ? ' (overdue)' : ''}, and none is open.`,
        facts: [
          { name: 'completedOn', value: completed.completedOn, source: `/v1/assessments/${r.assessmentId}` },
          {
            name: 'cadenceDays',
            value: r.cadenceDays,
            ...(completed.cadenceDays === null ? {} : { source: `/v1/assessments/${r.assessmentId}` }),
          },
          { name: 'defaultCadenceUsed', value: completed.cadenceDays === null },
          { name: 'dueDate', value: r.dueDate },
          { name: 'today', value: f.today },
        ],
      },
      links: { assessment: `/v1/assessments/${r.assessmentId}`, child: child(f.childId) },
      suggestedCall: {
        method: 'POST' as const,
        path: '/v1/ai/assessment-recall',
        scope: 'assessments',
        body: {
          childId: f.childId,
          horizonDays: RECOMMENDATION_RULES.reassessmentHorizonDays,
          defaultCadenceDays: f.defaultCadenceDays,
        },
        description: 'Create the re-assessment and start its reminders (idempotent)',
      },
      dueAt: r.dueDate,
    }
  })
}

/** The child record's field that records meeting each deadline. */
const EI_FIELD: Partial<Record<Deadline['kind'], string>> = {
  INITIAL_IFSP: 'initialIfspDate',
  PERIODIC_REVIEW: 'lastIfspReviewDate',
  ANNUAL_MEETING: 'lastIfspReviewDate',
  EXIT: 'exitDate',
}

function eiDeadlines(f: ChildRecommendationFacts): Recommendation[] {
  return f.eiDeadlines.flatMap((d) => {
    const item = eiDeadlineItem(f.childId, d, f.today)
    if (!item) return []
    const field = EI_FIELD[d.kind]
    return [
      {
        id: `EI_DEADLINE:${f.childId}:${d.kind}:${d.dueDate}`,
        kind: 'EI_DEADLINE' as const,
        priority: item.priority,
        title: `Meet the early-intervention ${d.kind} deadline`,
        explanation: {
          rule: RULES.EI_DEADLINE,
          reason: item.reason,
          facts: [
            { name: 'deadline', value: d.kind, source: `${child(f.childId)}/early-intervention` },
            { name: 'dueDate', value: d.dueDate },
            { name: 'status', value: d.status },
            { name: 'today', value: f.today },
          ],
        },
        links: item.links,
        suggestedCall: field
          ? {
              method: 'PATCH' as const,
              path: child(f.childId),
              scope: 'children',
              body: { earlyIntervention: { [field]: '<date held>' } },
              description: `Record the date the ${d.kind} was held`,
            }
          : {
              method: 'GET' as const,
              path: `${child(f.childId)}/early-intervention`,
              scope: 'children.read',
              description: 'Review the plan and its deadlines',
            },
        dueAt: d.dueDate,
      },
    ]
  })
}

function adjustGoals(f: ChildRecommendationFacts): Recommendation[] {
  const active = new Set(f.goals.filter((g) => g.status === 'ACTIVE').map((g) => g.id))
  return f.goalInsights.flatMap((g) => {
    const trend = g.progress.trend
    if (!active.has(g.goalId) || (trend !== 'STALLED' && trend !== 'DECLINING')) return []
    const last = g.dataPoints.slice(-3)
    return [
      {
        id: `ADJUST_GOAL:${f.childId}:${g.goalId}`,
        kind: 'ADJUST_GOAL' as const,
        priority: trend === 'DECLINING' ? ('HIGH' as const) : ('MEDIUM' as const),
        title: `Review goal ${g.goalId}: progress is ${trend.toLowerCase()}`,
        explanation: {
          rule: RULES.ADJUST_GOAL,
          reason: g.explanation,
          facts: [
            { name: 'trend', value: trend, source: `/v1/ai/children/${f.childId}/insights` },
            { name: 'trendChange', value: g.progress.trendChange },
            { name: 'dataPoints', value: g.progress.dataPoints },
            ...last.map((p) => ({
              name: 'accuracyPercent',
              value: p.accuracyPercent,
              source: `/v1/sessions/${p.sessionId}/notes/${p.noteId}`,
            })),
          ],
        },
        links: { insights: `/v1/ai/children/${f.childId}/insights`, child: child(f.childId) },
        suggestedCall: {
          method: 'PATCH' as const,
          path: child(f.childId),
          scope: 'children',
          body: { goals: '<the goals, with this one revised or put ON_HOLD>' },
          description: 'Revise the goal (target, cueing, or status); goals are replaced whole by a PATCH',
        },
        dueAt: null,
      },
    ]
  })
}

function bookNextSession(f: ChildRecommendationFacts): Recommendation[] {
  const active = f.goals.filter((g) => g.status === 'ACTIVE')
  if (active.length === 0 || f.nextAppointment) return []
  const last = f.lastAppointment
  return [
    {
      id: `BOOK_NEXT_SESSION:${f.childId}`,
      kind: 'BOOK_NEXT_SESSION',
      priority: 'MEDIUM',
      title: 'Book the next session',
      explanation: {
        rule: RULES.BOOK_NEXT_SESSION,
        reason: last
          ? `${active.length} active goal(s) and no confirmed appointment after the last one on ${last.startsAt}.`
          : `${active.length} active goal(s) and no appointment has ever been booked.`,
        facts: [
          ...active.map((g) => ({ name: 'activeGoalId', value: g.id, source: child(f.childId) })),
          {
            name: 'lastAppointmentId',
            value: last?.appointmentId ?? null,
            ...(last ? { source: `/v1/appointments/${last.appointmentId}` } : {}),
          },
          { name: 'nextAppointmentId', value: null },
        ],
      },
      links: {
        child: child(f.childId),
        ...(last ? { lastAppointment: `/v1/appointments/${last.appointmentId}` } : {}),
      },
      suggestedCall: {
        method: 'POST',
        path: '/v1/appointments',
        scope: 'bookings',
        body: { childId: f.childId, ...(last ? { providerId: last.providerId } : {}), startsAt: '<a free slot>' },
        description: last
          ? 'Book with the same provider (continuity); find a slot with GET /v1/availability'
          : 'Book a first session',
      },
      dueAt: null,
    },
  ]
}

function offerTherapists(f: ChildRecommendationFacts): Recommendation[] {
  const needed = new Map<string, string[]>()
  for (const g of f.goals) {
    if (g.status !== 'ACTIVE' || !g.discipline || f.disciplinesDelivered[g.discipline]) continue
    needed.set(g.discipline, [...(needed.get(g.discipline) ?? []), g.id])
  }
  return [...needed.entries()].map(([discipline, goalIds]) => ({
    id: `OFFER_THERAPISTS:${f.childId}:${discipline}`,
    kind: 'OFFER_THERAPISTS' as const,
    priority: 'MEDIUM' as const,
    title: `Offer the family a ${discipline} therapist`,
    explanation: {
      rule: RULES.OFFER_THERAPISTS,
      reason: `Goal(s) ${goalIds.join(', ')} need ${discipline} and none of the child's appointments delivered ${discipline}.`,
      facts: [
        { name: 'discipline', value: discipline },
        ...goalIds.map((id) => ({ name: 'activeGoalId', value: id, source: child(f.childId) })),
        { name: 'disciplinesDelivered', value: Object.keys(f.disciplinesDelivered).sort().join(',') },
      ],
    },
    links: { child: child(f.childId), match: '/v1/therapists/match' },
    suggestedCall: {
      method: 'POST' as const,
      path: '/v1/therapists/match',
      scope: 'matching',
      body: { childId: f.childId, discipline },
      description: 'Ranked therapists of the discipline, each score explained',
    },
    dueAt: null,
  }))
}

const PRIORITY_RANK: Record<RecommendationPriority, number> = { HIGH: 0, MEDIUM: 1, LOW: 2 }
const KIND_RANK = new Map<RecommendationKind, number>(
  (
    [
      'EI_DEADLINE',
      'SIGN_NOTE',
      'COMPLETE_ASSESSMENT',
      'SCHEDULE_REASSESSMENT',
      'ADJUST_GOAL',
      'BOOK_NEXT_SESSION',
      'OFFER_THERAPISTS',
    ] as const
  ).map((k, i) => [k, i])
)

/** Most urgent first; then by kind (deadlines before housekeeping); then by id, so the order is stable. */
export function orderRecommendations(list: Recommendation[]): Recommendation[] {
  return [...list].sort(
    (a, b) =>
      PRIORITY_RANK[a.priority] - PRIORITY_RANK[b.priority] ||
      KIND_RANK.get(a.kind)! - KIND_RANK.get(b.kind)! ||
      (a.id < b.id ? -1 : a.id > b.id ? 1 : 0)
  )
}

/**
 * The next actions for one child as of `now`.
 * @returns every recommendation whose rule applies, most urgent first
 */
export function recommendForChild(f: ChildRecommendationFacts, now: Date): Recommendation[] {
  return orderRecommendations([
    ...signNotes(f, now),
    ...completeAssessments(f),
    ...scheduleReassessments(f),
    ...eiDeadlines(f),
    ...adjustGoals(f),
    ...bookNextSession(f),
    ...offerTherapists(f),
  ])
}
