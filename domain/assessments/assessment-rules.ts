/**
 * @module An assessment's states. The reminder workflow moves an open assessment along SCHEDULED → DUE (the due
 * day came) → OVERDUE (it passed); the API ends it as COMPLETED (with scores) or CANCELLED. Moving the due date
 * of an open assessment puts it back to SCHEDULED and lets the workflow judge the new date.
 *
 * ```
 * SCHEDULED ──► DUE ──► OVERDUE
 *     │          │         │
 *     └──────────┴─────────┴──► COMPLETED | CANCELLED   (final)
 * ```
 */
import type { AssessmentStatus } from '../../generated/prisma/enums.ts'

export const ASSESSMENT_STATUSES = [
  'SCHEDULED',
  'DUE',
  'OVERDUE',
  'COMPLETED',
  'CANCELLED',
] as const satisfies readonly AssessmentStatus[]

/** Still to be done: the states the reminder workflow works on and the API may complete or cancel. */
export const OPEN_STATUSES: readonly AssessmentStatus[] = ['SCHEDULED', 'DUE', 'OVERDUE']

export const isOpen = (status: AssessmentStatus) => OPEN_STATUSES.includes(status)

/** The status a reminder step leaves an open assessment in: DUE on the due day, OVERDUE once escalated. */
export function statusAfterStep(current: AssessmentStatus, step: 'REMINDER' | 'DUE' | 'ESCALATION'): AssessmentStatus {
  if (!isOpen(current)) return current
  if (step === 'ESCALATION') return 'OVERDUE'
  if (step === 'DUE' && current === 'SCHEDULED') return 'DUE'
  return current
}
