/**
 * @module Therapist matching (`POST /v1/therapists/match`, spec row 6): who can see this child, ranked by an
 * explainable score, with their next bookable slots from the availability engine.
 *
 * 1. Resolve the needs (match-needs.ts) and load every provider of the tenant (match-candidates.ts).
 * 2. Keep those meeting the hard requirements (match-filters.ts); count the others by reason.
 * 3. Score each on the factors that need no availability, and bound what availability could add.
 * 4. In order of that bound, compute slots with the availability engine (domain/availability: the very rules booking
 *    applies, so every slot offered can be booked) until no unscored provider could still enter the list.
 * 5. Rank by score, then first slot, then id: deterministic.
 */
import type { UnitOfWork } from '../../infra/unit-of-work.ts'
import { computeSlots, type Slot } from '../availability/compute-slots.ts'
import { loadSchedules, type LoadedSchedule } from '../availability/load-schedules.ts'
import { zoneTimeline } from '../availability/zone-timeline.ts'
import { formatInTimeZone } from '../time.ts'
import { loadCandidates, type Candidate } from './match-candidates.ts'
import { checkRequirements, type ExclusionReason, type Setting } from './match-filters.ts'
import { resolveMatch, type ResolvedMatch } from './match-needs.ts'
import type { MatchRequest } from './match-request.ts'
import {
  MATCH_WEIGHTS,
  compareRanked,
  scoreProvider,
  scoreUpperBound,
  type AvailabilityFacts,
  type MatchReason,
} from './match-scoring.ts'
import { inPreferredTimes } from './preferred-times.ts'
import { DAY_MS } from '../../common/time/calendar.ts'

/** Providers whose slots are computed per round: one round usually settles a ranking. */
const ROUND = 50

export interface MatchSlot {
  startsAt: string
  endsAt: string
  timeZone: string
  inPreferredTimes: boolean
}

export interface ProviderMatch {
  rank: number
  providerId: string
  name: string
  score: number
  mode: Setting['mode']
  locationId: string
  reasons: MatchReason[]
  nextSlots: MatchSlot[]
}

export interface MatchResult {
  needs: {
    discipline: string
    ageGroup: string | null
    languages: string[]
    conditionCount: number
    payer: string | null
    mode: ResolvedMatch['mode']
    locationId: string | null
    from: string
    to: string
    durationMinutes: number
  }
  weights: typeof MATCH_WEIGHTS
  considered: number
  excluded: Partial<Record<ExclusionReason, number>>
  data: ProviderMatch[]
}

interface Eligible {
  candidate: Candidate
  setting: Setting
  upperBound: number
}

interface Scored {
  eligible: Eligible
  score: ReturnType<typeof scoreProvider>
  slots: Array<Slot & { preferred: boolean }>
  firstSlotAt: number | null
}

/**
 * Matches providers to a child's needs.
 * @param now - the current instant (the search window starts no earlier)
 * @throws AppError `validation_error` for unknown references or bad tags (match-needs.ts)
 */
export async function matchTherapists(uow: UnitOfWork, request: MatchRequest, now: Date): Promise<MatchResult> {
  const resolved = await resolveMatch(uow, request, now)
  const candidates = await loadCandidates(uow, resolved.childId)
  const excluded: Partial<Record<ExclusionReason, number>> = {}
  const eligible: Eligible[] = []
  for (const candidate of candidates) {
    const outcome = checkRequirements(resolved.requirements, candidate)
    if ('excluded' in outcome) excluded[outcome.excluded] = (excluded[outcome.excluded] ?? 0) + 1
    else eligible.push({ candidate, setting: outcome.setting, upperBound: scoreUpperBound(resolved.needs, candidate) })
  }
  eligible.sort((a, b) => b.upperBound - a.upperBound || (a.candidate.providerId < b.candidate.providerId ? -1 : 1))

  const scored: Scored[] = []
  for (let next = 0; next < eligible.length; next += ROUND) {
    // Stop once the list is full and no provider left could reach (or tie) the last place.
    const last = scored.length >= resolved.limit ? scored[resolved.limit - 1]! : undefined
    if (last && last.score.scoreTenths > eligible[next]!.upperBound) break
    scored.push(...(await scoreRound(uow, resolved, eligible.slice(next, next + ROUND), now)))
    scored.sort((a, b) => compareRanked(ranked(a), ranked(b)))
  }

  return {
    needs: {
      discipline: resolved.requirements.discipline,
      ageGroup: resolved.needs.ageGroup,
      languages: resolved.needs.languages,
      conditionCount: resolved.needs.conditions.length,
      payer: resolved.needs.payer,
      mode: resolved.mode,
      locationId: resolved.requirements.locationId,
      from: new Date(resolved.from).toISOString(),
      to: new Date(resolved.to).toISOString(),
      durationMinutes: resolved.durationMinutes,
    },
    weights: MATCH_WEIGHTS,
    considered: candidates.length,
    excluded,
    data: scored.slice(0, resolved.limit).map((s, index) => toMatch(s, index + 1, resolved)),
  }
}

const ranked = (s: Scored) => ({
  providerId: s.eligible.candidate.providerId,
  scoreTenths: s.score.scoreTenths,
  firstSlotAt: s.firstSlotAt,
})

/** Computes slots and final scores for one round of providers. */
async function scoreRound(uow: UnitOfWork, resolved: ResolvedMatch, round: Eligible[], now: Date): Promise<Scored[]> {
  const schedules = await loadRoundSchedules(uow, resolved, round)
  const preferredZone = resolved.preferredTimes
    ? zoneTimeline(resolved.preferredTimes.timeZone, resolved.from, resolved.to + resolved.durationMinutes * 60_000)
    : null
  return round.map((eligible) => {
    const schedule = schedules.get(eligible.candidate.providerId)
    const slots = schedule
      ? computeSlots(schedule.facts, {
          from: resolved.from,
          to: resolved.to,
          durationMinutes: resolved.durationMinutes,
          stepMinutes: Math.min(resolved.durationMinutes, 15),
          now: now.getTime(),
        }).map((slot) => ({
          ...slot,
          preferred:
            preferredZone !== null &&
            inPreferredTimes(resolved.preferredTimes!.windows, preferredZone, slot.start, slot.end),
        }))
      : []
    const counted = resolved.preferredTimes ? slots.filter((s) => s.preferred) : slots
    const first = counted[0]?.start ?? null
    const availability: AvailabilityFacts = {
      slotCount: distinct(slots).length,
      preferredSlotCount: distinct(slots.filter((s) => s.preferred)).length,
      daysToFirstSlot: first === null ? null : Math.floor((first - resolved.from) / DAY_MS),
    }
    return {
      eligible,
      score: scoreProvider(resolved.needs, eligible.candidate, availability),
      slots,
      firstSlotAt: first,
    }
  })
}

/**
 * Loads the round's schedules with the availability engine's loader: in-person providers under the policies of the
 * location asked for, the others under their primary location's.
 */
async function loadRoundSchedules(
  uow: UnitOfWork,
  resolved: ResolvedMatch,
  round: Eligible[]
): Promise<Map<string, LoadedSchedule>> {
  const groups = new Map<string | undefined, string[]>()
  for (const { candidate, setting } of round) {
    const at =
      setting.mode === 'IN_PERSON' && setting.locationId === resolved.requirements.locationId
        ? setting.locationId
        : undefined
    groups.set(at, [...(groups.get(at) ?? []), candidate.providerId])
  }
  const range = { start: resolved.from, end: resolved.to + resolved.durationMinutes * 60_000 }
  const byId = new Map<string, LoadedSchedule>()
  for (const [locationId, providerIds] of groups) {
    const loaded = await loadSchedules(
      uow,
      { tenantId: uow.tenantId, providerIds, locationId, limit: providerIds.length },
      { range }
    )
    for (const schedule of loaded) byId.set(schedule.providerId, schedule)
  }
  return byId
}

/**
 * The slots a family could book one after another: the engine offers every start on its grid (15:00, 15:15, ...),
 * so counting those would count one free hour four times. Greedy in time order, each slot starting once the
 * previous one ends.
 */
export function distinct<S extends Slot>(slots: readonly S[]): S[] {
  const chosen: S[] = []
  for (const slot of slots) if (chosen.length === 0 || slot.start >= chosen.at(-1)!.end) chosen.push(slot)
  return chosen
}

/**
 * The answer for one ranked provider: distinct slots in the preferred times first (when preferred times were
 * given), then the earliest others that overlap none of them, shown in time order.
 */
function toMatch(s: Scored, rank: number, resolved: ResolvedMatch): ProviderMatch {
  const wanted = resolved.needs.slotsWanted
  const chosen = distinct(s.slots.filter((slot) => slot.preferred)).slice(0, wanted)
  for (const slot of s.slots) {
    if (chosen.length >= wanted) break
    if (!slot.preferred && chosen.every((c) => slot.end <= c.start || slot.start >= c.end)) chosen.push(slot)
  }
  const timeZone = s.eligible.candidate.timeZone
  const nextSlots = chosen
    .sort((a, b) => a.start - b.start)
    .map((slot) => ({
      startsAt: formatInTimeZone(new Date(slot.start), timeZone),
      endsAt: formatInTimeZone(new Date(slot.end), timeZone),
      timeZone,
      inPreferredTimes: slot.preferred,
    }))
  return {
    rank,
    providerId: s.eligible.candidate.providerId,
    name: s.eligible.candidate.name,
    score: s.score.score,
    mode: s.eligible.setting.mode,
    locationId: s.eligible.setting.locationId,
    reasons: s.score.reasons,
    nextSlots,
  }
}
