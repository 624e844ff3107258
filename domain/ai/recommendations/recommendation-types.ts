/**
 * @module The shape of a recommendation: a next action for a child, the rule that raised it, the facts (with the
 * records they come from) it used, and the API call that carries it out. Shared by the pure rules
 * (./recommendation-rules.ts) and the loader (./child-recommendations.ts).
 */

export type RecommendationKind =
  | 'SIGN_NOTE'
  | 'COMPLETE_ASSESSMENT'
  | 'SCHEDULE_REASSESSMENT'
  | 'EI_DEADLINE'
  | 'ADJUST_GOAL'
  | 'BOOK_NEXT_SESSION'
  | 'OFFER_THERAPISTS'

export const RECOMMENDATION_KINDS: readonly RecommendationKind[] = [
  'SIGN_NOTE',
  'COMPLETE_ASSESSMENT',
  'SCHEDULE_REASSESSMENT',
  'EI_DEADLINE',
  'ADJUST_GOAL',
  'BOOK_NEXT_SESSION',
  'OFFER_THERAPISTS',
]

export type RecommendationPriority = 'HIGH' | 'MEDIUM' | 'LOW'

/** A fact a rule used: a name, its value, and the record it was read from when there is one. */
export interface RecommendationFact {
  name: string
  value: string | number | boolean | null
  /** A `/v1` path of the record the value comes from. */
  source?: string
}

export interface SuggestedCall {
  method: 'GET' | 'POST' | 'PATCH'
  /** A `/v1` path. */
  path: string
  /** The scope the call needs (the recommendation itself only needs `ai.read`). */
  scope: string
  /** A starting body; the caller completes or adjusts it (e.g. a time for an appointment). */
  body?: Record<string, unknown>
  description: string
}

export interface Recommendation {
  /** Stable: the rule and the record it is about, so the same facts always give the same id. */
  id: string
  kind: RecommendationKind
  priority: RecommendationPriority
  /** One sentence: what to do. */
  title: string
  explanation: {
    /** The rule, stated once per kind (docs/agents.md lists them). */
    rule: string
    /** Why it applies to this child, in terms of the record. */
    reason: string
    facts: RecommendationFact[]
  }
  /** `/v1` paths of the records behind it. */
  links: Record<string, string>
  suggestedCall: SuggestedCall
  /** When it is or was due: a UTC instant or a calendar date; null when it is due now without a deadline. */
  dueAt: string | null
}
