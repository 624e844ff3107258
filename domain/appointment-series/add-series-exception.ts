/**
 * @module Skipping one occurrence of a series: its appointment cancelled, the date recorded as an exception
 * (series-store.ts says what the changes of a series share).
 */
import type { UnitOfWork } from '../../infra/unit-of-work.ts'
import type { CancelInput } from '../appointments/cancel-appointment.ts'
import { validationError } from '../errors.ts'
import { expandWeekly, type Weekday } from './recurrence.ts'
import { cancelOccurrence, loadSeries, lockSeries, type SeriesDeps } from './series-store.ts'
import { dateToLocal, localToDate, type LocalDate } from './zoned-time.ts'

/**
 * Skips one occurrence: its appointment is cancelled (if still CONFIRMED) and the date recorded as an exception.
 * Adding an exception twice changes nothing.
 * @throws AppError `validation_error` for a date the series does not generate; `invalid_state_transition` when that
 *   occurrence is already COMPLETED or NO_SHOW
 */
export async function addSeriesException(
  deps: SeriesDeps,
  uow: UnitOfWork,
  id: string,
  input: CancelInput & { date: LocalDate }
) {
  const series = await lockSeries(uow, id)
  const exceptions = series.exceptionDates.map(dateToLocal)
  if (exceptions.includes(input.date)) return series
  const expanded = expandWeekly({
    firstStartsAt: series.startsAt,
    timeZone: series.timeZone,
    durationMinutes: series.durationMinutes,
    rule: {
      interval: series.interval,
      byWeekday: series.byWeekday as Weekday[],
      count: series.count ?? undefined,
      until: series.until ? dateToLocal(series.until) : undefined,
    },
  })
  if ('errors' in expanded || !expanded.expansion.dates.includes(input.date)) {
    throw validationError([
      { path: 'date', code: 'not_an_occurrence', message: `${input.date} is not a date this series generates.` },
    ])
  }
  const occurrence = series.appointments.find((a) => a.occurrenceDate && dateToLocal(a.occurrenceDate) === input.date)
  if (occurrence && occurrence.status !== 'CANCELLED') {
    await cancelOccurrence(deps, uow, occurrence.id, input)
  }
  await uow.tx.appointmentSeries.update({
    where: { id },
    data: { exceptionDates: [...exceptions, input.date].sort().map(localToDate) },
  })
  return loadSeries(uow, id)
}
