/**
 * @module A child's progress summary for a period, as a pure function of the signed SOAP notes and completed
 * assessments: counts for the period, and per active goal its progress over its recent sessions (progress-rules.ts).
 * A signed note belongs to the period in which it was signed (the moment it became data); the trend of a goal looks
 * back further than one period, because "no improvement over N sessions" spans periods.
 *
 * Free of Node imports: pure functions, unit-tested.
 */
import {
  goalProgress,
  needsFollowUp,
  type CueingLevel,
  type GoalObservation,
  type GoalProgress,
  type ProgressPolicy,
} from '../../common/child-progress/progress-rules.ts'

/** A signed note as the summary needs it: ids, times and the per-goal figures, no text. */
export interface SignedNoteData {
  sessionId: string
  /** The session's scheduled start (ISO 8601): orders the observations. */
  sessionAt: string
  /** When the note was signed (ISO 8601): decides the period it belongs to. */
  signedAt: string
  goals: Array<{ goalId?: string; accuracyPercent?: number; cueingLevel?: string }>
}

export interface CompletedAssessment {
  assessmentId: string
  instrument: string
  completedAt: string
}

export interface ProgressSummary {
  periodStart: string
  periodEnd: string
  sessionsCount: number
  signedNotesCount: number
  goals: GoalProgress[]
  assessments: CompletedAssessment[]
  /** Active goals that stalled or declined: what the follow-up is about. */
  stalledGoalIds: string[]
}

const CUEING = new Set(['INDEPENDENT', 'MINIMAL', 'MODERATE', 'MAXIMAL', 'HAND_OVER_HAND'])

/**
 * The summary of one period.
 * @param notes - signed notes over the look-back (period included), any order
 * @param assessments - assessments completed, any time; those in the period are listed
 * @param activeGoalIds - the child's ACTIVE goals; goals met, on hold or discontinued are not judged
 */
export function summariseProgress(
  period: { start: string; end: string },
  notes: SignedNoteData[],
  assessments: CompletedAssessment[],
  activeGoalIds: string[],
  policy: ProgressPolicy
): ProgressSummary {
  const inPeriod = (at: string) => at > period.start && at <= period.end
  const periodNotes = notes.filter((n) => inPeriod(n.signedAt))
  const observations = new Map<string, GoalObservation[]>(activeGoalIds.map((id) => [id, []]))
  for (const note of notes) {
    if (note.signedAt > period.end) continue
    for (const goal of note.goals) {
      const list = goal.goalId ? observations.get(goal.goalId) : undefined
      if (!list) continue
      list.push({
        goalId: goal.goalId!,
        at: note.sessionAt,
        ...(goal.accuracyPercent === undefined ? {} : { accuracyPercent: goal.accuracyPercent }),
        ...(goal.cueingLevel && CUEING.has(goal.cueingLevel) ? { cueingLevel: goal.cueingLevel as CueingLevel } : {}),
      })
    }
  }
  const goals = [...observations.entries()]
    .filter(([, list]) => list.length > 0)
    .map(([goalId, list]) => goalProgress(goalId, list, policy))
  return {
    periodStart: period.start,
    periodEnd: period.end,
    sessionsCount: new Set(periodNotes.map((n) => n.sessionId)).size,
    signedNotesCount: periodNotes.length,
    goals,
    assessments: assessments
      .filter((a) => inPeriod(a.completedAt))
      .sort((a, b) => (a.completedAt < b.completedAt ? -1 : 1)),
    stalledGoalIds: goals.filter(needsFollowUp).map((g) => g.goalId),
  }
}
