/**
 * @module The database's answer to a double booking. Two exclusion constraints on `appointments` (migration
 * `appointment_lifecycle_series`) refuse a CONFIRMED appointment that overlaps another CONFIRMED one of the same
 * provider or the same child, with SQLSTATE 23P01. Whatever the application checked before, that is the guarantee
 * under concurrent requests from several API instances; this module turns it into the API's 409.
 */
import { slotUnavailable, type AppError } from '../errors.ts'

export const PROVIDER_OVERLAP_CONSTRAINT = 'appointments_provider_no_overlap'
export const CHILD_OVERLAP_CONSTRAINT = 'appointments_child_no_overlap'

/** Which party of the booking the database found double-booked. */
export type OverlapParty = 'provider' | 'child'

/**
 * The party whose overlap constraint `error` reports, or undefined when it is not an exclusion violation of ours.
 * Prisma wraps the driver's error (`meta.driverAdapterError.cause`), so the SQLSTATE and the constraint name are
 * looked for along the cause chain and in the message.
 */
export function overlapViolation(error: unknown): OverlapParty | undefined {
  // Widened on purpose (`as`): `visit` sets it, which TypeScript's narrowing cannot see.
  let exclusion = false as boolean
  let text = ''
  const seen = new Set<unknown>()
  const visit = (value: unknown, depth: number): void => {
    if (typeof value !== 'object' || value === null || seen.has(value) || depth > 6) return
    seen.add(value)
    const record = value as Record<string, unknown>
    if (record.code === '23P01' || record.originalCode === '23P01') exclusion = true
    for (const key of ['message', 'originalMessage', 'constraint']) {
      if (typeof record[key] === 'string') text += ` ${record[key]}`
    }
    for (const key of ['cause', 'meta', 'driverAdapterError']) visit(record[key], depth + 1)
  }
  visit(error, 0)
  if (text.includes(PROVIDER_OVERLAP_CONSTRAINT)) return 'provider'
  if (text.includes(CHILD_OVERLAP_CONSTRAINT)) return 'child'
  // An exclusion violation on a constraint we cannot name is still a double booking, most likely the provider's.
  return exclusion ? 'provider' : undefined
}

/** The 409 for a double booking the database refused. */
export function overlapError(party: OverlapParty): AppError {
  return slotUnavailable(
    party === 'provider'
      ? 'The provider already has an appointment that overlaps this time.'
      : 'The child already has an appointment that overlaps this time.'
  )
}
