/**
 * @module The availability answer: bookable slots per provider for a range and a duration. One statement loads
 * every selected provider's facts at once (load-schedules.ts); the engine (compute-slots.ts) applies the booking
 * rules to each. Slots are shown in the provider's time zone with the offset at that instant.
 */
import { performance } from 'node:perf_hooks'
import type { UnitOfWork } from '../../infra/unit-of-work.ts'
import { notFound, validationError } from '../errors.ts'
import { canonicalLanguage } from '../providers/languages.ts'
import { slotsOf, type SlotQuery } from './compute-slots.ts'
import { loadSchedules, type LoadedSchedule } from './load-schedules.ts'
import { prepareSchedule } from './schedule-rules.ts'
import { DAY_MS } from '../../common/time/calendar.ts'

const MINUTE = 60_000

/** Longest range one request may cover. */
export const MAX_RANGE_DAYS = 31
/** Most providers one request may cover: a centre's whole roster in one answer. */
export const MAX_PROVIDERS = 200
export const DEFAULT_PROVIDERS = 50

export interface AvailabilityQuery {
  /** Exactly these providers (any status: a provider that is not bookable answers with no slots). */
  providerIds?: string[]
  /** Otherwise APPROVED providers matching these filters. */
  discipline?: string
  locationId?: string
  language?: string
  from: Date
  to: Date
  durationMinutes: number
  stepMinutes?: number
  limit?: number
  /** The last provider id of the previous page. */
  afterProviderId?: string
}

export interface ProviderAvailability {
  providerId: string
  name: string
  timeZone: string
  locationId: string
  bookable: boolean
  slots: Array<{ startsAt: string; endsAt: string; timeZone: string }>
}

/** Where a call's time went, in ms: loading the facts (the database round trip) and computing the slots. */
export interface AvailabilityTimings {
  loadMs: number
  computeMs: number
}

/**
 * Computes availability.
 * @param now - the current instant: no slot starts before it or inside the minimum notice
 * @param timings - filled in when given (the handler reports them in `Server-Timing`)
 * @returns one entry per provider in id order, and the id to continue after when more providers match
 * @throws AppError `validation_error` (range too long or inverted), `not_found` (a provider asked for by id)
 */
export async function findAvailability(
  uow: UnitOfWork,
  query: AvailabilityQuery,
  now: Date,
  timings?: AvailabilityTimings
): Promise<{ data: ProviderAvailability[]; nextProviderId: string | null }> {
  const from = query.from.getTime()
  const to = query.to.getTime()
  if (to <= from) throw validationError([{ path: 'to', code: 'before_start', message: 'to must be after from.' }])
  if (to - from > MAX_RANGE_DAYS * DAY_MS) {
    throw validationError([
      { path: 'to', code: 'range_too_long', message: `A range covers at most ${MAX_RANGE_DAYS} days.` },
    ])
  }
  const limit = query.providerIds ? query.providerIds.length : (query.limit ?? DEFAULT_PROVIDERS)
  const duration = query.durationMinutes * MINUTE
  const range = { start: from, end: to + duration }
  const language = query.language ? (canonicalLanguage(query.language) ?? query.language) : undefined
  // One row more than asked tells whether another page exists.
  const loadStarted = performance.now()
  const loaded = await loadSchedules(
    uow,
    {
      tenantId: uow.tenantId,
      providerIds: query.providerIds,
      discipline: query.discipline,
      language,
      locationId: query.locationId,
      approvedOnly: !query.providerIds,
      afterId: query.afterProviderId,
      limit: limit + 1,
    },
    { range }
  )
  const loadMs = performance.now() - loadStarted
  const page = loaded.slice(0, limit)
  // A provider asked for by id must exist in the tenant (another tenant's is as unknown as a made-up id).
  const missing = query.providerIds?.find((id) => !page.some((p) => p.providerId === id))
  if (missing) {
    const exists =
      query.locationId !== undefined &&
      (await uow.tx.provider.count({ where: { id: missing, tenantId: uow.tenantId } })) > 0
    if (!exists) throw notFound('provider', missing)
    throw validationError([
      { path: 'locationId', code: 'not_served', message: `Provider ${missing} does not work at this location.` },
    ])
  }
  const slotQuery = {
    from,
    to,
    durationMinutes: query.durationMinutes,
    stepMinutes: query.stepMinutes ?? Math.min(query.durationMinutes, 15),
    now: now.getTime(),
  }
  const computeStarted = performance.now()
  const data = page.map((provider) => providerAvailability(provider, slotQuery))
  if (timings) {
    timings.loadMs = loadMs
    timings.computeMs = performance.now() - computeStarted
  }
  return { data, nextProviderId: loaded.length > limit ? (page.at(-1)?.providerId ?? null) : null }
}

/**
 * One provider's answer from its loaded facts: the pure part of the endpoint (no I/O).
 * @param provider - as loaded by {@link loadSchedules} for [from, to + duration]
 * @param query - range, duration, step and now, in ms
 */
export function providerAvailability(provider: LoadedSchedule, query: SlotQuery): ProviderAvailability {
  const schedule = prepareSchedule(
    provider.facts,
    { start: query.from, end: query.to + query.durationMinutes * MINUTE },
    query.now
  )
  const { zone } = schedule
  const timeZone = provider.facts.timeZone
  return {
    providerId: provider.providerId,
    name: provider.name,
    timeZone,
    locationId: provider.locationId,
    bookable: provider.facts.bookable,
    slots: slotsOf(schedule, query).map((slot) => ({
      startsAt: zone.format(slot.start),
      endsAt: zone.format(slot.end),
      timeZone,
    })),
  }
}
