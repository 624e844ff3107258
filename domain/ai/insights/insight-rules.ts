/**
 * @module Child-progress insights as a pure function of the child's goals, signed SOAP notes and completed
 * assessments: per goal, the data points behind it (one per signed note that measured it) and its trend by the
 * progress rules the follow-up workflow uses (common/child-progress/progress-rules.ts, reused, not re-derived); per
 * assessment instrument and subtest, the scores over time and their change. Every figure comes with the records it
 * was computed from, so an insight can be checked. Unit-tested in test/unit/domain/ai/insights/insight-rules.test.ts.
 */
import {
  goalProgress,
  SUPPORT_ORDER,
  type CueingLevel,
  type GoalProgress,
  type ProgressPolicy,
} from '../../../common/child-progress/progress-rules.ts'

export interface InsightGoal {
  id: string
  description: string
  status: string
}

export interface InsightNote {
  noteId: string
  sessionId: string
  /** The session's scheduled start, ISO 8601 UTC. */
  sessionAt: string
  goals: Array<{ goalId?: string; accuracyPercent?: number; cueingLevel?: string }>
}

export interface InsightAssessment {
  assessmentId: string
  instrument: string
  completedAt: string
  scores: Array<{
    subtest: string
    standardScore?: number
    scaledScore?: number
    percentile?: number
    rawScore?: number
  }>
}

export interface GoalInsight {
  goalId: string
  description: string
  status: string
  progress: GoalProgress
  explanation: string
  dataPoints: Array<{
    at: string
    sessionId: string
    noteId: string
    accuracyPercent: number | null
    cueingLevel: string | null
  }>
}

export interface ScoreSeries {
  instrument: string
  subtest: string
  /** The score kind compared over time: the first of standard, scaled, percentile, raw the completions all share. */
  measure: 'standardScore' | 'scaledScore' | 'percentile' | 'rawScore'
  change: number | null
  points: Array<{ at: string; assessmentId: string; value: number }>
}

const CUEING = new Set<string>(SUPPORT_ORDER)
const MEASURES = ['standardScore', 'scaledScore', 'percentile', 'rawScore'] as const

function explain(p: GoalProgress, policy: ProgressPolicy): string {
  const span =
    p.firstAccuracy === null
      ? 'no accuracy recorded'
      : `accuracy ${p.firstAccuracy}% → ${p.lastAccuracy}% over ${p.dataPoints} sessions`
  switch (p.trend) {
    case 'MASTERED':
      return `Mastered: at least ${policy.masteryCount} of the last ${policy.masteryOf} sessions at ${policy.masteryPercent}% or better (${span}).`
    case 'IMPROVING':
      return `Improving: the trend over the last ${policy.windowSessions} sessions gains ${p.trendChange} points, at least ${policy.minImprovementPoints} (${span}).`
    case 'DECLINING':
      return `Declining: the trend over the last ${policy.windowSessions} sessions loses ${-(p.trendChange ?? 0)} points, ${policy.declinePoints} or more (${span}).`
    case 'STALLED':
      return `Stalled: the trend over the last ${policy.windowSessions} sessions changes ${p.trendChange} points, less than ${policy.minImprovementPoints} (${span}).`
    default:
      return `Not enough data: a trend needs ${policy.windowSessions} sessions with an accuracy figure (${span}).`
  }
}

/** The insights of one child. */
export function childInsights(
  goals: InsightGoal[],
  notes: InsightNote[],
  assessments: InsightAssessment[],
  policy: ProgressPolicy
) {
  const orderedNotes = [...notes].sort((a, b) =>
    a.sessionAt < b.sessionAt ? -1 : a.sessionAt > b.sessionAt ? 1 : a.noteId < b.noteId ? -1 : 1
  )
  const goalInsights: GoalInsight[] = goals.map((goal) => {
    const dataPoints = orderedNotes.flatMap((n) =>
      n.goals
        .filter((g) => g.goalId === goal.id)
        .map((g) => ({
          at: n.sessionAt,
          sessionId: n.sessionId,
          noteId: n.noteId,
          accuracyPercent: g.accuracyPercent ?? null,
          cueingLevel: g.cueingLevel ?? null,
        }))
    )
    const progress = goalProgress(
      goal.id,
      dataPoints.map((d) => ({
        goalId: goal.id,
        at: d.at,
        ...(d.accuracyPercent === null ? {} : { accuracyPercent: d.accuracyPercent }),
        ...(d.cueingLevel !== null && CUEING.has(d.cueingLevel) ? { cueingLevel: d.cueingLevel as CueingLevel } : {}),
      })),
      policy
    )
    return {
      goalId: goal.id,
      description: goal.description,
      status: goal.status,
      progress,
      explanation: explain(progress, policy),
      dataPoints,
    }
  })

  const series = new Map<
    string,
    {
      instrument: string
      subtest: string
      rows: Array<{ at: string; assessmentId: string; score: InsightAssessment['scores'][number] }>
    }
  >()
  for (const a of [...assessments].sort((x, y) =>
    x.completedAt < y.completedAt ? -1 : x.completedAt > y.completedAt ? 1 : 0
  )) {
    for (const score of a.scores) {
      const key = `${a.instrument.toLowerCase()}\u0000${score.subtest.toLowerCase()}`
      const entry = series.get(key) ?? { instrument: a.instrument, subtest: score.subtest, rows: [] }
      entry.rows.push({ at: a.completedAt, assessmentId: a.assessmentId, score })
      series.set(key, entry)
    }
  }
  const scoreSeries: ScoreSeries[] = []
  for (const s of series.values()) {
    const measure = MEASURES.find((m) => s.rows.every((r) => typeof r.score[m] === 'number'))
    if (!measure) continue
    const points = s.rows.map((r) => ({ at: r.at, assessmentId: r.assessmentId, value: r.score[measure]! }))
    scoreSeries.push({
      instrument: s.instrument,
      subtest: s.subtest,
      measure,
      change: points.length > 1 ? points[points.length - 1]!.value - points[0]!.value : null,
      points,
    })
  }
  return { goals: goalInsights, assessments: scoreSeries }
}
