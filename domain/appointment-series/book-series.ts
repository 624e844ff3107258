/**
 * @module Booking a weekly series: one ordinary appointment per occurrence, all in one transaction (series-store.ts
 * says what the changes of a series share).
 *
 * Conflicts: by default a series is all or nothing. If any occurrence cannot be booked (availability rules, or the
 * provider or the child already booked), nothing is created and the 409 `slot_unavailable` lists every conflicting
 * date in `errors`. With `skipConflicts: true` the free occurrences are booked and the others recorded in
 * `skippedDates`; a series none of whose occurrences is free is still a 409.
 */
import type { AppointmentType } from '../../generated/prisma/enums.ts'
import type { UnitOfWork } from '../../infra/unit-of-work.ts'
import { batchAfterCommit } from '../appointments/after-commit-batch.ts'
import { DEFAULT_DURATION_MINUTES, defaultService, resolveInterval } from '../appointments/appointment-rules.ts'
import { insertAppointment, lockAppointmentParties, slotProblem } from '../appointments/book-appointment.ts'
import { AppError, slotUnavailable, validationError, type FieldError } from '../errors.ts'
import { newId } from '../ids.ts'
import type { ServicePrice } from '../pricing/price-for-service.ts'
import { expandWeekly, type Weekday } from './recurrence.ts'
import { loadSeries, type SeriesDeps } from './series-store.ts'
import { localToDate, type LocalDate } from './zoned-time.ts'

export interface CreateSeriesInput {
  childId: string
  providerId: string
  type: AppointmentType
  service?: string
  /** The first occurrence; its local wall-clock time in the location's zone is kept for every occurrence. */
  startsAt: Date
  durationMinutes?: number
  notes?: string
  recurrence: { frequency: 'WEEKLY'; interval: number; byWeekday?: Weekday[]; count?: number; until?: LocalDate }
  exceptions?: LocalDate[]
  skipConflicts?: boolean
}

/**
 * Books a weekly series.
 * @throws AppError `validation_error` (rule, exceptions, first start, parties), `slot_unavailable` (conflicts)
 */
export async function bookSeries(
  { outbox, workflowStartAt, clock }: SeriesDeps,
  realUow: UnitOfWork,
  input: CreateSeriesInput
) {
  // The occurrences' workflow starts and event signals run together after commit (after-commit-batch.ts).
  const batch = batchAfterCommit(realUow)
  const uow = batch.uow
  const now = clock()
  const durationMinutes = input.durationMinutes ?? DEFAULT_DURATION_MINUTES
  const first = resolveInterval(input.startsAt, durationMinutes, now)
  if ('errors' in first) throw validationError(first.errors)
  const parties = await lockAppointmentParties(uow, input)
  const timeZone = parties.location.timeZone
  const expanded = expandWeekly({
    firstStartsAt: input.startsAt,
    timeZone,
    durationMinutes,
    rule: input.recurrence,
    exceptions: input.exceptions,
  })
  if ('errors' in expanded) throw validationError(expanded.errors)
  const { expansion } = expanded
  const service = input.service ?? defaultService(parties.provider.disciplines, input.type)

  const series = await uow.tx.appointmentSeries.create({
    data: {
      id: newId('appointmentSeries'),
      tenantId: uow.tenantId,
      locationId: parties.location.id,
      childId: input.childId,
      providerId: parties.provider.id,
      type: input.type,
      service,
      timeZone,
      startsAt: input.startsAt,
      durationMinutes,
      frequency: input.recurrence.frequency,
      interval: input.recurrence.interval,
      byWeekday: expansion.byWeekday,
      count: input.recurrence.count ?? null,
      until: input.recurrence.until ? localToDate(input.recurrence.until) : null,
      exceptionDates: [...new Set(input.exceptions ?? [])].sort().map(localToDate),
      notes: input.notes ?? null,
    },
  })

  const conflicts: FieldError[] = []
  const skipped: Date[] = []
  const prices = new Map<string, ServicePrice>()
  for (const occurrence of expansion.occurrences) {
    const interval = { startsAt: occurrence.startsAt, endsAt: occurrence.endsAt }
    let problem = await slotProblem(uow, { providerId: parties.provider.id, interval, now })
    if (!problem) {
      try {
        await insertAppointment(
          uow,
          { outbox, workflowStartAt },
          parties,
          {
            type: input.type,
            service,
            interval,
            notes: input.notes,
            series: { id: series.id, occurrenceDate: localToDate(occurrence.date) },
          },
          { savepoint: true, prices }
        )
      } catch (error) {
        if (!(error instanceof AppError && error.code === 'slot_unavailable')) throw error
        problem = error
      }
    }
    if (problem) {
      conflicts.push({ path: `occurrences[${occurrence.date}]`, code: 'slot_unavailable', message: problem.message })
      skipped.push(localToDate(occurrence.date))
    }
  }

  const booked = expansion.occurrences.length - conflicts.length
  if (conflicts.length && (!input.skipConflicts || booked === 0)) {
    // The request's savepoint rolls back the series and every occurrence booked so far.
    throw slotUnavailable(
      input.skipConflicts
        ? 'None of the occurrences can be booked.'
        : `${conflicts.length} of ${expansion.occurrences.length} occurrences cannot be booked; nothing was booked. ` +
            'Move the series, add those dates as exceptions, or send skipConflicts: true.',
      conflicts
    )
  }
  if (skipped.length) {
    await uow.tx.appointmentSeries.update({ where: { id: series.id }, data: { skippedDates: skipped } })
  }
  batch.flush()
  return loadSeries(uow, series.id)
}
