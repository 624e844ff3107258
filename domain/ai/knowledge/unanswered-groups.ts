/**
 * @module The unanswered questions grouped by meaning, as pure functions of the kept rows: a question joins the first
 * group whose first question's embedding is at least `GROUP_SIMILARITY` similar to its own (same model only), so "Do
 * you do swimming?" and "Is there hydrotherapy?" count as one missing policy. Greedy, in the order asked: one pass,
 * each question compared with the groups so far (bounded by the report's window of at most `REPORT_MAX_QUESTIONS`).
 */
import { mondayOf } from '../../../common/time/calendar.ts'

/** A kept question as the report reads it. */
export interface UnansweredRow {
  id: string
  question: string
  embeddingModel: string
  vector: Float32Array
  answered: boolean
  score: number
  declinedBy: string | null
  closestDocumentId: string | null
  closestDocumentName: string | null
  closestQuote: string | null
  askedAt: Date
  checkedAt: Date
  resolvedDocumentId: string | null
  resolvedDocumentName: string | null
  resolvedQuote: string | null
  resolvedAt: Date | null
}

/**
 * Cosine similarity at which two questions are taken for the same one asked again (the sentence model's vectors).
 * Measured by eval/unanswered-grouping.ts on the team's and the outside set's questions: at 0.65, 25% of pairs the
 * same passage answers are grouped and 0.05% of different pairs (at 0.6: 31% and 0.11%). Merging two different
 * questions would hide a missing policy, splitting one only splits its count: the stricter of the two.
 */
export const GROUP_SIMILARITY = 0.65
/** Questions a report reads at most: the most recent of its window. */
export const REPORT_MAX_QUESTIONS = 1000

export interface UnansweredGroup {
  /** The first question's id: stable while that question is kept. */
  id: string
  /** The group's first question, as asked. */
  question: string
  rows: UnansweredRow[]
}

const cosine = (a: Float32Array, b: Float32Array) => {
  let dot = 0
  let na = 0
  let nb = 0
  for (let i = 0; i < a.length; i++) {
    dot += a[i]! * b[i]!
    na += a[i]! * a[i]!
    nb += b[i]! * b[i]!
  }
  return na === 0 || nb === 0 ? 0 : dot / Math.sqrt(na * nb)
}

/**
 * Groups questions by meaning, in the order asked.
 * @param rows - oldest first
 */
export function groupByMeaning(rows: UnansweredRow[], similarity = GROUP_SIMILARITY): UnansweredGroup[] {
  const groups: Array<UnansweredGroup & { first: UnansweredRow }> = []
  for (const row of rows) {
    const group = groups.find(
      (g) =>
        g.first.embeddingModel === row.embeddingModel &&
        g.first.vector.length === row.vector.length &&
        cosine(g.first.vector, row.vector) >= similarity
    )
    if (group) group.rows.push(row)
    else groups.push({ id: row.id, question: row.question, rows: [row], first: row })
  }
  return groups.map(({ first: _first, ...group }) => group)
}

/** The Monday (UTC) of a moment's week, as YYYY-MM-DD. */
export const weekOf = (at: Date): string => mondayOf(at.toISOString().slice(0, 10))

/** Questions per week, oldest week first. */
export function countByWeek(rows: Array<{ askedAt: Date }>): Array<{ weekStart: string; count: number }> {
  const counts = new Map<string, number>()
  for (const row of rows) counts.set(weekOf(row.askedAt), (counts.get(weekOf(row.askedAt)) ?? 0) + 1)
  return [...counts].sort(([a], [b]) => a.localeCompare(b)).map(([weekStart, count]) => ({ weekStart, count }))
}

/** The group as the report shows it: counts, the closest passage of its latest question, what answers it now. */
export function describeGroup(group: UnansweredGroup) {
  const latest = group.rows.at(-1)!
  const resolved = group.rows.find((r) => r.resolvedAt !== null)
  return {
    id: group.id,
    question: group.question,
    count: group.rows.length,
    firstAskedAt: group.rows[0]!.askedAt.toISOString(),
    lastAskedAt: latest.askedAt.toISOString(),
    byWeek: countByWeek(group.rows),
    closest:
      latest.closestDocumentId === null
        ? null
        : {
            documentId: latest.closestDocumentId,
            documentName: latest.closestDocumentName!,
            quote: latest.closestQuote!,
          },
    answeredBy:
      resolved === undefined
        ? null
        : {
            documentId: resolved.resolvedDocumentId!,
            documentName: resolved.resolvedDocumentName!,
            quote: resolved.resolvedQuote!,
            at: resolved.resolvedAt!.toISOString(),
          },
    questions: group.rows
      .slice(-10)
      .reverse()
      .map((r) => ({
        id: r.id,
        question: r.question,
        askedAt: r.askedAt.toISOString(),
        answered: r.answered,
        score: r.score,
        declinedBy: r.declinedBy,
      })),
  }
}
export type UnansweredGroupView = ReturnType<typeof describeGroup>
