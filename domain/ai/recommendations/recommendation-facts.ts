/**
 * @module What the recommendation rules read and say: the facts of one child (loaded by ./child-recommendations.ts),
 * the rules' thresholds and each kind's rule in words. The rules themselves are record-keeping-rules.ts (notes,
 * assessments, re-assessments, early-intervention deadlines) and therapy-plan-rules.ts (goals, the next session,
 * therapists); recommendation-rules.ts runs them all and orders what they recommend.
 */
import type { AssessmentFact, SessionFact } from '../briefings/briefing-rules.ts'
import type { Deadline } from '../../../common/early-intervention/ei-plan.ts'
import type { GoalInsight } from '../insights/insight-rules.ts'
import type { CompletedFact } from '../assessment-recall/recall-rules.ts'
import type { RecommendationKind } from './recommendation-types.ts'

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

/** The API path of a child, which the recommendations' calls start from. */
export const childPath = (id: string) => `/v1/children/${id}`
