/**
 * @module The rules of a session's record, as pure functions: its state machine, which attendance goes with which
 * state, and what is billable. The session service applies them to every PATCH.
 *
 * ```
 * SCHEDULED ──► IN_PROGRESS ──► COMPLETED
 *     │                            ▲
 *     ├────────────────────────────┘   (completed without a recorded start: documented afterwards)
 *     └──► CANCELLED
 * ```
 * COMPLETED and CANCELLED are final. Setting the current state again is not a transition (a no-op).
 */
import type { SessionAttendance, SessionStatus } from '../../generated/prisma/enums.ts'
import type { FieldError } from '../errors.ts'

export const SESSION_STATUSES = [
  'SCHEDULED',
  'IN_PROGRESS',
  'COMPLETED',
  'CANCELLED',
] as const satisfies readonly SessionStatus[]
export const SESSION_ATTENDANCE = [
  'PRESENT',
  'LATE',
  'ABSENT_EXCUSED',
  'ABSENT_UNEXCUSED',
  'CANCELLED_LATE',
] as const satisfies readonly SessionAttendance[]

const TRANSITIONS: Record<SessionStatus, readonly SessionStatus[]> = {
  SCHEDULED: ['IN_PROGRESS', 'COMPLETED', 'CANCELLED'],
  IN_PROGRESS: ['COMPLETED'],
  COMPLETED: [],
  CANCELLED: [],
}

/** Whether a session may go from `from` to `to` (staying put is always allowed). */
export const canTransition = (from: SessionStatus, to: SessionStatus): boolean =>
  from === to || TRANSITIONS[from].includes(to)

/** Attendance that means the child was there: the only kind a session that took place can have. */
const ATTENDED: readonly SessionAttendance[] = ['PRESENT', 'LATE']

/** A session's record as the rules see it, after a PATCH is applied. */
export interface SessionRecord {
  status: SessionStatus
  attendance?: SessionAttendance
  actualStartedAt?: Date
  actualEndedAt?: Date
  billingCodes: ReadonlyArray<{ code: string; units: number }>
  placeOfService?: string
  telehealth: boolean
}

/** CMS place-of-service codes for telehealth: 02 (not in the patient's home) and 10 (in the patient's home). */
export const TELEHEALTH_PLACES_OF_SERVICE = ['02', '10'] as const

/**
 * Every way the record contradicts itself: attendance that does not fit the state, an end before the start, times
 * on a session that never started, billing on a session that did not take place (late cancellations and no-shows
 * are never billed to insurance: docs/domain.md, 'Session billing rules'), a telehealth session at a physical place of service.
 * @returns field errors (empty when consistent)
 */
export function sessionRecordErrors(record: SessionRecord): FieldError[] {
  const errors: FieldError[] = []
  const tookPlace = record.status === 'IN_PROGRESS' || record.status === 'COMPLETED'
  if (tookPlace && record.attendance && !ATTENDED.includes(record.attendance)) {
    errors.push({
      path: 'attendance',
      code: 'inconsistent_with_status',
      message: `A ${record.status} session had the child present: attendance is PRESENT or LATE.`,
    })
  }
  if (record.status === 'CANCELLED' && record.attendance && ATTENDED.includes(record.attendance)) {
    errors.push({
      path: 'attendance',
      code: 'inconsistent_with_status',
      message: 'A CANCELLED session records an absence or late cancellation, not presence.',
    })
  }
  if (record.status === 'SCHEDULED' || record.status === 'CANCELLED') {
    for (const field of ['actualStartedAt', 'actualEndedAt'] as const) {
      if (record[field]) {
        errors.push({
          path: field,
          code: 'inconsistent_with_status',
          message: `A ${record.status} session has no ${field}.`,
        })
      }
    }
  }
  if (record.status === 'IN_PROGRESS' && record.actualEndedAt) {
    errors.push({
      path: 'actualEndedAt',
      code: 'inconsistent_with_status',
      message: 'An IN_PROGRESS session has not ended.',
    })
  }
  if (
    record.actualStartedAt &&
    record.actualEndedAt &&
    record.actualEndedAt.getTime() <= record.actualStartedAt.getTime()
  ) {
    errors.push({ path: 'actualEndedAt', code: 'before_start', message: 'The session must end after it starts.' })
  }
  if (record.status === 'CANCELLED' && record.billingCodes.length > 0) {
    errors.push({
      path: 'billingCodes',
      code: 'not_billable',
      message: 'A cancelled or missed session is not billed to insurance; remove the billing codes.',
    })
  }
  if (
    record.telehealth &&
    record.placeOfService &&
    !(TELEHEALTH_PLACES_OF_SERVICE as readonly string[]).includes(record.placeOfService)
  ) {
    errors.push({
      path: 'placeOfService',
      code: 'inconsistent_with_telehealth',
      message: 'A telehealth session uses place of service 02 or 10.',
    })
  }
  return errors
}

/** Total billed units of a session's billing lines. */
export const totalUnits = (billingCodes: ReadonlyArray<{ units: number }>) =>
  billingCodes.reduce((sum, line) => sum + line.units, 0)
