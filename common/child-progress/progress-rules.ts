/**
 * @module How a child's progress on a goal is judged from the structured data of signed SOAP notes (docs/domain.md,
 * 'Judging progress on a goal'): accuracy per session (trials correct / trials) and the cueing level needed, over the goal's most recent
 * sessions. A goal is
 *
 * - MASTERED when it met the mastery criterion (e.g. 80 % accuracy in 4 of the last 5 sessions);
 * - IMPROVING when the accuracy trend over the window rose by at least `minImprovementPoints`, or the support needed
 *   fell (cue fading is progress even at steady accuracy);
 * - DECLINING when the trend fell by `declinePoints` or more;
 * - STALLED otherwise: no real improvement over the last `windowSessions` sessions — the case that needs a follow-up
 *   (a goal change, a different approach, a re-evaluation);
 * - INSUFFICIENT_DATA with fewer sessions than the window.
 *
 * The trend is the least-squares line through the window's accuracies (change = slope × (n − 1)), so one good or bad
 * day does not decide it. Free of Node imports: pure functions, unit-tested.
 */

/** Least to most support (the SOAP note's cueing levels, domain/notes/note-schema.ts). */
export const SUPPORT_ORDER = ['INDEPENDENT', 'MINIMAL', 'MODERATE', 'MAXIMAL', 'HAND_OVER_HAND'] as const
export type CueingLevel = (typeof SUPPORT_ORDER)[number]

export type GoalTrend = 'MASTERED' | 'IMPROVING' | 'STALLED' | 'DECLINING' | 'INSUFFICIENT_DATA'

export interface ProgressPolicy {
  /** How many of the goal's most recent sessions the trend is judged over. */
  windowSessions: number
  /** Accuracy points the trend must gain over the window to count as improvement. */
  minImprovementPoints: number
  /** Accuracy points lost over the window that count as a decline. */
  declinePoints: number
  /** Mastery: at least `masteryCount` of the last `masteryOf` sessions at `masteryPercent` or better. */
  masteryPercent: number
  masteryCount: number
  masteryOf: number
}

export const DEFAULT_PROGRESS_POLICY: ProgressPolicy = {
  windowSessions: 4,
  minImprovementPoints: 5,
  declinePoints: 10,
  masteryPercent: 80,
  masteryCount: 4,
  masteryOf: 5,
}

/** One goal's data from one signed note. */
export interface GoalObservation {
  goalId: string
  /** When the session took place (ISO 8601); observations are ordered by it. */
  at: string
  accuracyPercent?: number
  cueingLevel?: CueingLevel
}

export interface GoalProgress {
  goalId: string
  /** Sessions with an accuracy figure for the goal (all of them, not only the window). */
  dataPoints: number
  firstAccuracy: number | null
  lastAccuracy: number | null
  /** The trend's change in accuracy points over the window (null without a full window). */
  trendChange: number | null
  firstCueing: CueingLevel | null
  lastCueing: CueingLevel | null
  trend: GoalTrend
}

const round1 = (value: number) => Math.round(value * 10) / 10

/** Change of the least-squares line over the points (slope × (n − 1)). */
export function fittedChange(values: number[]): number {
  const n = values.length
  if (n < 2) return 0
  const meanX = (n - 1) / 2
  const meanY = values.reduce((sum, v) => sum + v, 0) / n
  let num = 0
  let den = 0
  values.forEach((y, x) => {
    num += (x - meanX) * (y - meanY)
    den += (x - meanX) ** 2
  })
  return (num / den) * (n - 1)
}

const supportOf = (level: CueingLevel) => SUPPORT_ORDER.indexOf(level)

/**
 * One goal's progress from its observations.
 * @param observations - the goal's observations, any order
 */
export function goalProgress(goalId: string, observations: GoalObservation[], policy: ProgressPolicy): GoalProgress {
  const ordered = [...observations].sort((a, b) => (a.at < b.at ? -1 : a.at > b.at ? 1 : 0))
  const accuracies = ordered.flatMap((o) => (o.accuracyPercent === undefined ? [] : [o.accuracyPercent]))
  const cueing = ordered.flatMap((o) => (o.cueingLevel === undefined ? [] : [o.cueingLevel]))
  const base = {
    goalId,
    dataPoints: accuracies.length,
    firstAccuracy: accuracies[0] ?? null,
    lastAccuracy: accuracies.at(-1) ?? null,
    firstCueing: cueing[0] ?? null,
    lastCueing: cueing.at(-1) ?? null,
  }
  const recent = accuracies.slice(-policy.masteryOf)
  if (recent.filter((a) => a >= policy.masteryPercent).length >= policy.masteryCount) {
    return {
      ...base,
      trendChange:
        accuracies.length >= policy.windowSessions
          ? round1(fittedChange(accuracies.slice(-policy.windowSessions)))
          : null,
      trend: 'MASTERED',
    }
  }
  if (accuracies.length < policy.windowSessions) return { ...base, trendChange: null, trend: 'INSUFFICIENT_DATA' }

  const change = fittedChange(accuracies.slice(-policy.windowSessions))
  // Cueing over the same sessions: less support at the end of the window than at its start.
  const windowCueing = ordered
    .slice(-policy.windowSessions)
    .flatMap((o) => (o.cueingLevel === undefined ? [] : [supportOf(o.cueingLevel)]))
  const fadedCues = windowCueing.length >= 2 && windowCueing.at(-1)! < windowCueing[0]!
  const trend: GoalTrend =
    change <= -policy.declinePoints
      ? 'DECLINING'
      : change >= policy.minImprovementPoints || fadedCues
        ? 'IMPROVING'
        : 'STALLED'
  return { ...base, trendChange: round1(change), trend }
}

/** Goals whose trend calls for a follow-up. */
export const needsFollowUp = (progress: GoalProgress) => progress.trend === 'STALLED' || progress.trend === 'DECLINING'
