/**
 * @module Recurring appointments: a weekly series books one ordinary appointment per occurrence, in local time
 * (recurrence.ts), all in one transaction, each with its own booking workflow and `booking.created` event.
 *
 * Conflicts: by default a series is all or nothing. If any occurrence cannot be booked (availability rules, or the
 * provider or the child already booked), nothing is created and the 409 `slot_unavailable` lists every conflicting
 * date in `errors`. With `skipConflicts: true` the free occurrences are booked and the others recorded in
 * `skippedDates`; a series none of whose occurrences is free is still a 409.
 *
 * Later changes: an exception cancels that date's appointment (with a reason) and records the date; cancelling the
 * series from a date cancels every CONFIRMED occurrence from then on. Each cancellation is an ordinary one (late
 * flag, `booking.cancelled`). Single occurrences are rescheduled or completed through /v1/appointments.
 */
import type { Prisma } from '../../generated/prisma/client.ts'
import type { AppointmentType } from '../../generated/prisma/enums.ts'
import type { UnitOfWork } from '../../infra/unit-of-work.ts'
import { batchAfterCommit } from '../appointments/after-commit-batch.ts'
import { lockAppointment } from '../appointments/appointment-row.ts'
import { DEFAULT_DURATION_MINUTES, defaultService, resolveInterval } from '../appointments/appointment-rules.ts'
import type { AppointmentService } from '../appointments/appointment-service.ts'
import { cancelLockedAppointment, type CancelInput } from '../appointments/cancel-appointment.ts'
import { insertAppointment, lockBookingParties, slotProblem } from '../appointments/book-appointment.ts'
import { AppError, notFound, slotUnavailable, validationError, type FieldError } from '../errors.ts'
import { newId } from '../ids.ts'
import { keysetOrderBy, keysetWhere, parseList, toSortedPage, type SortParam } from '../listing.ts'
import type { ServicePrice } from '../pricing/price-for-service.ts'
import { expandWeekly, type Weekday } from './recurrence.ts'
import { dateToLocal, localToDate, toLocal, type LocalDate } from './zoned-time.ts'

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

export interface SeriesListQuery {
  limit: number
  cursor?: string
  sort: SortParam<'createdAt'>
  childId?: string
  providerId?: string
}

const OCCURRENCES = {
  select: { id: true, occurrenceDate: true, status: true, startsAt: true },
  orderBy: [{ occurrenceDate: 'asc' }, { id: 'asc' }],
} satisfies Prisma.AppointmentSeries$appointmentsArgs

/** Creates the series service over the appointment service's booking primitives. */
export function createSeriesService({ appointments }: { appointments: AppointmentService }) {
  const { outbox, workflowStartAt, clock, notifier } = appointments.internals
  /** An occurrence's cancellation, signalled only: no workflow update per occurrence of a long series. */
  const cancelOccurrence = async (uow: UnitOfWork, appointmentId: string, input: CancelInput) =>
    cancelLockedAppointment({ clock, notifier }, uow, await lockAppointment(uow, appointmentId), input)

  async function load({ tx, tenantId }: UnitOfWork, id: string) {
    const series = await tx.appointmentSeries.findFirst({
      where: { id, tenantId },
      include: { appointments: OCCURRENCES },
    })
    if (!series) throw notFound('appointment series', id)
    return series
  }

  async function lock(uow: UnitOfWork, id: string) {
    const locked = await uow.tx.$queryRaw<Array<{ id: string }>>`
      SELECT id FROM appointment_series WHERE id = ${id} AND tenant_id = ${uow.tenantId} FOR UPDATE`
    if (!locked.length) throw notFound('appointment series', id)
    return load(uow, id)
  }

  /**
   * Books a weekly series.
   * @throws AppError `validation_error` (rule, exceptions, first start, parties), `slot_unavailable` (conflicts)
   */
  async function create(realUow: UnitOfWork, input: CreateSeriesInput) {
    // The occurrences' workflow starts and event signals run together after commit (after-commit-batch.ts).
    const batch = batchAfterCommit(realUow)
    const uow = batch.uow
    const now = clock()
    const durationMinutes = input.durationMinutes ?? DEFAULT_DURATION_MINUTES
    const first = resolveInterval(input.startsAt, durationMinutes, now)
    if ('errors' in first) throw validationError(first.errors)
    const parties = await lockBookingParties(uow, input)
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
    return load(uow, series.id)
  }

  /** A page of the tenant's series, newest first by default. */
  async function list(uow: UnitOfWork, query: SeriesListQuery) {
    const page = parseList(query)
    const where = { tenantId: uow.tenantId, childId: query.childId, providerId: query.providerId }
    const rows = await uow.tx.appointmentSeries.findMany({
      where: { AND: [where, keysetWhere(page)] },
      orderBy: keysetOrderBy(page),
      take: page.limit + 1,
      include: { appointments: OCCURRENCES },
    })
    return toSortedPage(rows, page)
  }

  /**
   * Cancels every CONFIRMED occurrence on or after `from` (a local date, default today in the series' zone), each as
   * an ordinary cancellation, and records `cancelledFrom`.
   * @throws AppError `validation_error` for a date before today
   */
  async function cancelFrom(realUow: UnitOfWork, id: string, input: CancelInput & { from?: LocalDate }) {
    const batch = batchAfterCommit(realUow)
    const uow = batch.uow
    const series = await lock(uow, id)
    const today = toLocal(clock(), series.timeZone).date
    const from = input.from ?? today
    if (from < today) {
      throw validationError([{ path: 'from', code: 'in_past', message: `from must be today (${today}) or later.` }])
    }
    for (const occurrence of series.appointments) {
      if (occurrence.status !== 'CONFIRMED' || !occurrence.occurrenceDate) continue
      if (dateToLocal(occurrence.occurrenceDate) < from) continue
      await cancelOccurrence(uow, occurrence.id, input)
    }
    const current = series.cancelledFrom ? dateToLocal(series.cancelledFrom) : undefined
    const cancelledFrom = current && current < from ? current : from
    await uow.tx.appointmentSeries.update({ where: { id }, data: { cancelledFrom: localToDate(cancelledFrom) } })
    batch.flush()
    return load(uow, id)
  }

  /**
   * Skips one occurrence: its appointment is cancelled (if still CONFIRMED) and the date recorded as an exception.
   * Adding an exception twice changes nothing.
   * @throws AppError `validation_error` for a date the series does not generate; `invalid_state_transition` when that
   *   occurrence is already COMPLETED or NO_SHOW
   */
  async function addException(uow: UnitOfWork, id: string, input: CancelInput & { date: LocalDate }) {
    const series = await lock(uow, id)
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
      await cancelOccurrence(uow, occurrence.id, input)
    }
    await uow.tx.appointmentSeries.update({
      where: { id },
      data: { exceptionDates: [...exceptions, input.date].sort().map(localToDate) },
    })
    return load(uow, id)
  }

  return { create, get: load, list, cancelFrom, addException }
}

export type SeriesService = ReturnType<typeof createSeriesService>
export type SeriesRow = Awaited<ReturnType<SeriesService['get']>>
