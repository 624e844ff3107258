/**
 * @module Recurring appointments, as the API drives them: book a weekly series, read and list series, cancel one from
 * a date, skip an occurrence. One function per change, each in its own file (series-store.ts says what they share);
 * this service gives them the appointment service's booking primitives.
 */
import type { UnitOfWork } from '../../infra/unit-of-work.ts'
import type { AppointmentService } from '../appointments/appointment-service.ts'
import type { CancelInput } from '../appointments/cancel-appointment.ts'
import { addSeriesException } from './add-series-exception.ts'
import { bookSeries, type CreateSeriesInput } from './book-series.ts'
import { cancelSeriesFrom } from './cancel-series.ts'
import { listSeries, loadSeries } from './series-store.ts'
import type { LocalDate } from './zoned-time.ts'

/** Creates the series service over the appointment service's booking primitives. */
export function createSeriesService({ appointments }: { appointments: AppointmentService }) {
  const deps = appointments.internals
  return {
    /** @see bookSeries */
    create: (uow: UnitOfWork, input: CreateSeriesInput) => bookSeries(deps, uow, input),
    get: loadSeries,
    list: listSeries,
    /** @see cancelSeriesFrom */
    cancelFrom: (uow: UnitOfWork, id: string, input: CancelInput & { from?: LocalDate }) =>
      cancelSeriesFrom(deps, uow, id, input),
    /** @see addSeriesException */
    addException: (uow: UnitOfWork, id: string, input: CancelInput & { date: LocalDate }) =>
      addSeriesException(deps, uow, id, input),
  }
}

export type SeriesService = ReturnType<typeof createSeriesService>
