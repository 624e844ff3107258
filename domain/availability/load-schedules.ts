/**
 * @module Loads what the booking rules need for a set of providers over a range: three statements whatever the
 * number of providers (providers with their location's policies, time off, CONFIRMED appointments).
 */
import type { UnitOfWork } from '../../infra/unit-of-work.ts'
import { MAX_DURATION_MINUTES } from '../appointments/appointment-rules.ts'
import type { ScheduleFacts, Span } from './schedule-rules.ts'
import {
  appointmentSpansSql,
  providerSchedulesSql,
  timeOffSql,
  type ProviderScheduleRow,
  type ProviderSelection,
  type ProviderSpanRow,
} from './schedule-queries.ts'
import { readWeeklyHours } from './weekly-hours.ts'

const MINUTE = 60_000

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
 * Loads the selected providers and, for [range.start - buffer, range.end + buffer], their time off and appointments.
 * @returns the providers in id order
 */
export async function loadSchedules(
  { tx }: UnitOfWork,
  selection: ProviderSelection,
  options: LoadOptions
): Promise<LoadedSchedule[]> {
  const providers = await tx.$queryRaw<ProviderScheduleRow[]>(providerSchedulesSql(selection))
  if (providers.length === 0) return []
  const ids = providers.map((p) => p.id)
  // One window for all: the widest buffer among the providers' locations.
  const buffer = Math.max(...providers.map((p) => p.buffer_minutes)) * MINUTE
  const from = new Date(options.range.start - buffer)
  const to = new Date(options.range.end + buffer)
  const [timeOff, appointments] = await Promise.all([
    tx.$queryRaw<ProviderSpanRow[]>(timeOffSql(selection.tenantId, ids, from, to)),
    tx.$queryRaw<ProviderSpanRow[]>(
      appointmentSpansSql(selection.tenantId, ids, from, to, MAX_DURATION_MINUTES, options.excludeAppointmentId)
    ),
  ])
  const spansOf = groupSpans(timeOff)
  const busyOf = groupSpans(appointments)
  return providers.map((p) => ({
    providerId: p.id,
    name: p.name,
    locationId: p.location_id,
    onboardingStatus: p.onboarding_status,
    facts: {
      timeZone: p.time_zone,
      weeklyHours: readWeeklyHours(p.weekly_hours),
      bookable: p.onboarding_status === 'APPROVED',
      bufferMinutes: p.buffer_minutes,
      minimumNoticeMinutes: p.minimum_notice_minutes,
      timeOff: spansOf.get(p.id) ?? [],
      appointments: busyOf.get(p.id) ?? [],
    },
  }))
}

function groupSpans(rows: ProviderSpanRow[]): Map<string, Span[]> {
  const byProvider = new Map<string, Span[]>()
  for (const row of rows) {
    let spans = byProvider.get(row.provider_id)
    if (!spans) byProvider.set(row.provider_id, (spans = []))
    spans.push({ start: row.starts_ms, end: row.ends_ms })
  }
  return byProvider
}
