/**
 * @module The recommendation rules as pure functions of one child's facts: what to do next for the child, why, and
 * which API call does it. They reuse the rules other features already decide by (the care-coordinator's note,
 * assessment and early-intervention rules, the recall rule, the progress trend) so a recommendation never disagrees
 * with the briefing, the recall or the insights. Deterministic: the same facts give the same list, in the same order.
 * The facts and thresholds are recommendation-facts.ts; the rules, record-keeping-rules.ts and therapy-plan-rules.ts.
 * Unit-tested in test/unit/domain/ai/recommendations/recommendation-rules.test.ts.
 */
import type { ChildRecommendationFacts } from './recommendation-facts.ts'
import type { Recommendation, RecommendationKind, RecommendationPriority } from './recommendation-types.ts'
import { completeAssessments, eiDeadlines, scheduleReassessments, signNotes } from './record-keeping-rules.ts'
import { adjustGoals, bookNextSession, offerTherapists } from './therapy-plan-rules.ts'

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
