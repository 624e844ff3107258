/**
 * @module Turns a match request into the needs and requirements matching works with: the child's record fills what
 * the request leaves out (age from the date of birth, languages, diagnoses, location), explicit facts win, and
 * every reference and tag is checked. Health data read here stays in the request's memory: it never reaches a log,
 * and the answer echoes counts, not diagnoses.
 */
import type { UnitOfWork } from '../../infra/unit-of-work.ts'
import { validationError, type FieldError } from '../errors.ts'
import { ageGroupOf } from '../providers/age-groups.ts'
import { canonicalLanguage } from '../providers/languages.ts'
import { isValidTimeZone } from '../time.ts'
import type { MatchRequirements, SettingMode } from './match-filters.ts'
import type { MatchRequest } from './match-request.ts'
import type { MatchNeeds } from './match-scoring.ts'
import type { PreferredWindow } from './preferred-times.ts'
import { DAY_MS } from '../../common/time/calendar.ts'

/** Everything one match request resolves to. */
export interface ResolvedMatch {
  needs: MatchNeeds
  requirements: MatchRequirements
  childId: string | null
  mode: SettingMode
  preferredTimes: { timeZone: string; windows: PreferredWindow[] } | null
  /** The search window, ms. */
  from: number
  to: number
  durationMinutes: number
  limit: number
}

/**
 * Whole months from a date of birth to a date (both UTC calendar dates).
 * @returns months of age, never negative
 */
export function ageInMonths(dateOfBirth: Date, on: Date): number {
  const months =
    (on.getUTCFullYear() - dateOfBirth.getUTCFullYear()) * 12 +
    (on.getUTCMonth() - dateOfBirth.getUTCMonth()) -
    (on.getUTCDate() < dateOfBirth.getUTCDate() ? 1 : 0)
  return Math.max(0, months)
}

interface ChildFacts {
  dateOfBirth: Date
  languages: string[]
  diagnoses: string[]
  locationId: string | null
}

async function loadChild({ tx, tenantId }: UnitOfWork, childId: string): Promise<ChildFacts | null> {
  const child = await tx.child.findFirst({
    where: { id: childId, tenantId, archivedAt: null },
    select: { dateOfBirth: true, languages: true, diagnoses: true, locationId: true },
  })
  if (!child) return null
  const diagnoses = Array.isArray(child.diagnoses) ? (child.diagnoses as Array<{ code?: unknown }>) : []
  return {
    dateOfBirth: child.dateOfBirth,
    languages: child.languages,
    diagnoses: diagnoses.map((d) => (typeof d.code === 'string' ? d.code.toUpperCase() : '')).filter(Boolean),
    locationId: child.locationId,
  }
}

/**
 * Resolves a request.
 * @param now - the current instant: the search never starts before it
 * @throws AppError `validation_error`: unknown child or location (`not_found`), `invalid_language`, `invalid_time_zone`,
 *   `required` (an in-person request with no location)
 */
export async function resolveMatch(uow: UnitOfWork, request: MatchRequest, now: Date): Promise<ResolvedMatch> {
  const errors: FieldError[] = []
  const child = request.childId ? await loadChild(uow, request.childId) : null
  if (request.childId && !child)
    errors.push({ path: 'childId', code: 'not_found', message: 'No active child with this id.' })

  const languages: string[] = []
  for (const [index, tag] of (request.languages ?? child?.languages ?? []).entries()) {
    const canonical = canonicalLanguage(tag)
    if (!canonical)
      errors.push({ path: `languages.${index}`, code: 'invalid_language', message: 'Not a BCP 47 language tag.' })
    else if (!languages.includes(canonical)) languages.push(canonical)
  }

  const mode = request.setting?.mode ?? 'ANY'
  const locationId = request.setting?.locationId ?? child?.locationId ?? null
  if (request.setting?.locationId) {
    const found = await uow.tx.location.count({ where: { id: request.setting.locationId, tenantId: uow.tenantId } })
    if (found === 0)
      errors.push({ path: 'setting.locationId', code: 'not_found', message: 'No location with this id.' })
  }
  if (mode === 'IN_PERSON' && locationId === null) {
    errors.push({
      path: 'setting.locationId',
      code: 'required',
      message: 'An in-person match needs a location (or a child who has one).',
    })
  }
  if (request.preferredTimes && !isValidTimeZone(request.preferredTimes.timeZone)) {
    errors.push({ path: 'preferredTimes.timeZone', code: 'invalid_time_zone', message: 'Not an IANA time zone.' })
  }
  const requestedFrom = request.search?.from ? Date.parse(request.search.from) : now.getTime()
  if (Number.isNaN(requestedFrom))
    errors.push({ path: 'search.from', code: 'invalid_date', message: 'Not a valid date-time.' })
  if (errors.length) throw validationError(errors)

  // A window in the past offers nothing bookable; it starts now at the earliest.
  const from = Math.max(requestedFrom, now.getTime())
  const days = request.search?.days ?? 14
  const ageMonths = request.ageMonths ?? (child ? ageInMonths(child.dateOfBirth, new Date(from)) : null)
  const ageGroup = ageMonths === null ? null : ageGroupOf(ageMonths)
  const conditions = [...new Set([...(request.diagnoses ?? child?.diagnoses ?? []), ...(request.focusAreas ?? [])])]
  const preferredProviderIds = request.preferences?.preferredProviderIds ?? []
  const slotsWanted = request.search?.slotsPerProvider ?? 3

  return {
    needs: {
      ageGroup,
      languages,
      conditions,
      payer: request.payer ?? null,
      preferredProviderIds,
      knownChild: child !== null,
      slotsWanted,
      hasPreferredTimes: request.preferredTimes !== undefined,
      windowDays: days,
    },
    requirements: {
      discipline: request.discipline,
      mode,
      locationId,
      ageGroup,
      excludeProviderIds: request.preferences?.excludeProviderIds ?? [],
    },
    childId: child ? request.childId! : null,
    mode,
    preferredTimes: request.preferredTimes ?? null,
    from,
    to: from + days * DAY_MS,
    durationMinutes: request.search?.durationMinutes ?? 60,
    limit: request.limit,
  }
}
