/**
 * @module Which completed assessments call for a re-assessment now: pure, unit-tested in
 * test/unit/domain/ai/assessment-recall/recall-rules.test.ts. A completed assessment is recalled when it has no re-assessment yet,
 * a cadence applies (its own `reassessmentCadenceDays`, else the request's `defaultCadenceDays`), it is the child's
 * latest completion of that instrument, no assessment of that instrument is open for the child, and its completion date + cadence falls on or before today + horizon.
 */
import { addDays } from '../../../common/time/calendar.ts'

export interface CompletedFact {
  assessmentId: string
  childId: string
  instrument: string
  /** The completion's calendar day at the child's centre, YYYY-MM-DD. */
  completedOn: string
  completedAt: Date
  cadenceDays: number | null
  hasReassessment: boolean
  /** The child already has an open (not completed, not cancelled) assessment of this instrument. */
  openOfInstrument: boolean
}

export interface RecallDecision {
  assessmentId: string
  childId: string
  instrument: string
  cadenceDays: number
  dueDate: string
  overdue: boolean
}

/** The recalls due by `today` + `horizonDays`, in child, instrument order. */
export function recallsDue(
  facts: CompletedFact[],
  today: string,
  horizonDays: number,
  defaultCadenceDays?: number
): RecallDecision[] {
  // Only the latest completion per child and instrument counts: an older one was superseded by the newer.
  const latest = new Map<string, CompletedFact>()
  for (const f of facts) {
    const key = `${f.childId}\u0000${f.instrument.toLowerCase()}`
    const seen = latest.get(key)
    if (
      !seen ||
      f.completedAt.getTime() > seen.completedAt.getTime() ||
      (f.completedAt.getTime() === seen.completedAt.getTime() && f.assessmentId > seen.assessmentId)
    ) {
      latest.set(key, f)
    }
  }
  const limit = addDays(today, horizonDays)
  const decisions: RecallDecision[] = []
  for (const f of latest.values()) {
    if (f.hasReassessment || f.openOfInstrument) continue
    const cadenceDays = f.cadenceDays ?? defaultCadenceDays
    if (!cadenceDays) continue
    const dueDate = addDays(f.completedOn, cadenceDays)
    if (dueDate > limit) continue
    decisions.push({
      assessmentId: f.assessmentId,
      childId: f.childId,
      instrument: f.instrument,
      cadenceDays,
      dueDate,
      overdue: dueDate < today,
    })
  }
  return decisions.sort((a, b) =>
    a.childId < b.childId
      ? -1
      : a.childId > b.childId
        ? 1
        : a.instrument < b.instrument
          ? -1
          : a.instrument > b.instrument
            ? 1
            : 0
  )
}
