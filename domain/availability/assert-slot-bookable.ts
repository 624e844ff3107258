/**
 * @module Booking's acceptance check: the same rules as the availability engine (schedule-rules.ts), applied to
 * one requested time. Called by appointment create and reschedule (domain/appointments/book-appointment.ts), which
 * turn the reason into the error with `slotUnavailableError`.
 *
 * Signature:
 *
 * ```ts
 * slotUnavailableReason(uow: UnitOfWork, input: {
 *   providerId: string
 *   startsAt: Date
 *   endsAt: Date
 *   excludeAppointmentId?: string   // the appointment being rescheduled: it does not block its own new time
 *   locationId?: string             // whose policies apply; default the provider's primary location
 *   now?: Date                      // the caller's clock (minimum notice); default the system clock
 * }): Promise<UnavailableReason | null>
 * ```
 *
 * Answers why the time cannot be booked (provider not bookable, minimum notice, outside working hours, time off,
 * overlapping appointment, buffer), which `slotUnavailableError` turns into AppError 409 `slot_unavailable`; throws
 * 400 `validation_error` when the provider (or the location, for this provider) does not exist in the tenant.
 *
 * Concurrency: call it after locking the provider's row (`SELECT … FOR UPDATE`), as booking does, so that two
 * bookings of one provider are decided one after the other. The database's exclusion constraint on appointments
 * stays the last guard against overlaps; this check is what explains the refusal.
 */
import type { UnitOfWork } from '../../infra/unit-of-work.ts'
import { AppError, slotUnavailable, validationError } from '../errors.ts'
import { loadSchedules } from './load-schedules.ts'
import { prepareSchedule, UNAVAILABLE_REASONS, whyUnbookable, type UnavailableReason } from './schedule-rules.ts'

export interface SlotRequest {
  providerId: string
  startsAt: Date
  endsAt: Date
  excludeAppointmentId?: string
  locationId?: string
  now?: Date
}

/**
 * The reason [startsAt, endsAt) cannot be booked for `providerId`, or null when it can.
 * @throws AppError `validation_error` for an unknown provider, or a location the provider does not work at
 */
export async function slotUnavailableReason(uow: UnitOfWork, input: SlotRequest): Promise<UnavailableReason | null> {
  const start = input.startsAt.getTime()
  const end = input.endsAt.getTime()
  const [loaded] = await loadSchedules(
    uow,
    { tenantId: uow.tenantId, providerIds: [input.providerId], locationId: input.locationId, limit: 1 },
    { range: { start, end }, excludeAppointmentId: input.excludeAppointmentId }
  )
  if (!loaded) {
    const exists =
      input.locationId !== undefined &&
      (await uow.tx.provider.count({ where: { id: input.providerId, tenantId: uow.tenantId } })) > 0
    throw exists
      ? validationError([
          { path: 'locationId', code: 'not_served', message: 'The provider does not work at this location.' },
        ])
      : validationError([{ path: 'providerId', code: 'not_found', message: 'No provider with this id.' }])
  }
  const now = (input.now ?? new Date()).getTime()
  return whyUnbookable(prepareSchedule(loaded.facts, { start, end }, now), start, end)
}

/** The 409 for a reason; `code` stays `slot_unavailable`, the detail names the reason. */
export function slotUnavailableError(reason: UnavailableReason): AppError {
  return slotUnavailable(`${UNAVAILABLE_REASONS[reason]} (${reason})`)
}
