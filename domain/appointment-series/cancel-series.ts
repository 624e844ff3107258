/**
 * @module Cancelling a series from a date: every CONFIRMED occurrence from then on, each an ordinary cancellation (late
 * flag, `booking.cancelled`), signalled rather than asked of its workflow (series-store.ts says what the changes of a
 * series share).
 */
import type { UnitOfWork } from '../../infra/unit-of-work.ts'
import { batchAfterCommit } from '../appointments/after-commit-batch.ts'
import type { CancelInput } from '../appointments/cancel-appointment.ts'
import { validationError } from '../errors.ts'
import { cancelOccurrence, loadSeries, lockSeries, type SeriesDeps } from './series-store.ts'
import { dateToLocal, localToDate, toLocal, type LocalDate } from './zoned-time.ts'

/**
 * Cancels every CONFIRMED occurrence on or after `from` (a local date, default today in the series' zone), each as
 * an ordinary cancellation, and records `cancelledFrom`.
 * @throws AppError `validation_error` for a date before today
 */
export async function cancelSeriesFrom(
  deps: SeriesDeps,
  realUow: UnitOfWork,
  id: string,
  input: CancelInput & { from?: LocalDate }
) {
  const batch = batchAfterCommit(realUow)
  const uow = batch.uow
  const series = await lockSeries(uow, id)
  const today = toLocal(deps.clock(), series.timeZone).date
  const from = input.from ?? today
  if (from < today) {
    throw validationError([{ path: 'from', code: 'in_past', message: `from must be today (${today}) or later.` }])
  }
  for (const occurrence of series.appointments) {
    if (occurrence.status !== 'CONFIRMED' || !occurrence.occurrenceDate) continue
    if (dateToLocal(occurrence.occurrenceDate) < from) continue
    await cancelOccurrence(deps, uow, occurrence.id, input)
  }
  const current = series.cancelledFrom ? dateToLocal(series.cancelledFrom) : undefined
  const cancelledFrom = current && current < from ? current : from
  await uow.tx.appointmentSeries.update({ where: { id }, data: { cancelledFrom: localToDate(cancelledFrom) } })
  batch.flush()
  return loadSeries(uow, id)
}
