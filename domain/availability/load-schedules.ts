/**
 * @module Loads what the booking rules need for a set of providers over a range: one statement and one round trip
 * whatever the number of providers (schedule-queries.ts `scheduleFactsSql`), answered as one JSON text parsed here.
 */
import type { UnitOfWork } from '../../infra/unit-of-work.ts'
import { MAX_DURATION_MINUTES } from '../appointments/appointment-rules.ts'
import type { ScheduleFacts, Span } from './schedule-rules.ts'
import { scheduleFactsSql, type ProviderFactsTuple, type ProviderSelection } from './schedule-queries.ts'
import { readWeeklyHours } from './weekly-hours.ts'

/** A provider with its facts, as loaded. */
export interface LoadedSchedule {
  providerId: string
  name: string
  locationId: string
  onboardingStatus: string
  facts: ScheduleFacts
}

export interface LoadOptions {
  /** The instants whose bookability will be asked about: starts and ends of candidate slots. */
  range: Span
  /** An appointment to ignore (the one being rescheduled). */
  excludeAppointmentId?: string
}

/**
 * Loads the selected providers and, for [range.start - buffer, range.end + buffer] (each provider's location's
 * buffer), their time off and CONFIRMED appointments.
 * @returns the providers in id order
 */
export async function loadSchedules(
  uow: UnitOfWork,
  selection: ProviderSelection,
  options: LoadOptions
): Promise<LoadedSchedule[]> {
  // Straight through the driver (UnitOfWork.query): every booking and availability answer runs it.
  const [row] = await uow.query<{ facts: string }>(
    scheduleFactsSql(selection, {
      from: new Date(options.range.start),
      to: new Date(options.range.end),
      longestMinutes: MAX_DURATION_MINUTES,
      excludeAppointmentId: options.excludeAppointmentId,
    })
  )
  return parseScheduleFacts(row?.facts ?? '[]')
}

/** The providers of {@link scheduleFactsSql}'s JSON text. */
export function parseScheduleFacts(text: string): LoadedSchedule[] {
  const tuples = JSON.parse(text) as ProviderFactsTuple[]
  return tuples.map(
    ([
      providerId,
      name,
      timeZone,
      weeklyHours,
      onboardingStatus,
      locationId,
      buffer,
      notice,
      timeOff,
      appointments,
    ]) => ({
      providerId,
      name,
      locationId,
      onboardingStatus,
      facts: {
        timeZone,
        weeklyHours: readWeeklyHours(weeklyHours),
        bookable: onboardingStatus === 'APPROVED',
        bufferMinutes: buffer,
        minimumNoticeMinutes: notice,
        timeOff: spans(timeOff),
        appointments: spans(appointments),
      },
    })
  )
}

/** Spans of a flat [start0, end0, start1, end1, ...] list. */
function spans(flat: number[]): Span[] {
  const result = new Array<Span>(flat.length >> 1)
  for (let i = 0; i < result.length; i++) result[i] = { start: flat[2 * i]!, end: flat[2 * i + 1]! }
  return result
}
