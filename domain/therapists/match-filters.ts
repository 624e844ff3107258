/**
 * @module Who can be matched at all: the hard requirements, checked before any scoring. A provider failing one is not
 * ranked, and the answer counts the exclusions by reason so a short list is explained too. Pure.
 */
import type { AgeGroup } from '../providers/age-groups.ts'

/** Why a provider was left out, in the order the requirements are checked. Stable: shown to API clients. */
export const EXCLUSION_REASONS = {
  NOT_BOOKABLE: 'Only APPROVED providers who have not been offboarded are matched.',
  DISCIPLINE: 'Does not practise the discipline asked for.',
  SETTING: 'Neither works at the location asked for nor offers telehealth, as the setting requires.',
  AGE_GROUP: "States the age groups served, and the child's is not among them.",
  NOT_ACCEPTING_NEW_CLIENTS: 'Not accepting new clients, and has not seen this child.',
  EXCLUDED_BY_REQUEST: 'Excluded by the request.',
} as const

export type ExclusionReason = keyof typeof EXCLUSION_REASONS

/** How the family wants to meet the provider. */
export type SettingMode = 'IN_PERSON' | 'TELEHEALTH' | 'ANY'

/** The requirements of one request. */
export interface MatchRequirements {
  discipline: string
  mode: SettingMode
  /** The location for in-person sessions, when known. */
  locationId: string | null
  ageGroup: AgeGroup | null
  excludeProviderIds: string[]
}

/** A provider as far as the requirements care. */
export interface CandidateFacts {
  providerId: string
  onboardingStatus: string
  offboarded: boolean
  disciplines: string[]
  ageGroups: string[]
  telehealth: boolean
  /** Every location the provider works at, the primary one first. */
  locationIds: string[]
  acceptingNewClients: boolean
  seenBefore: boolean
}

/** How a provider who meets the requirements would see the child: in person (at which location) or by telehealth. */
export interface Setting {
  mode: 'IN_PERSON' | 'TELEHEALTH'
  /** The location whose policies apply (in person: where; telehealth: the provider's primary location). */
  locationId: string
}

/** The setting a provider can offer for the request, or null when none fits. */
export function settingFor(r: MatchRequirements, p: CandidateFacts): Setting | null {
  const primary = p.locationIds[0]!
  const inPerson = r.locationId === null ? primary : p.locationIds.includes(r.locationId) ? r.locationId : null
  if (r.mode === 'IN_PERSON') return inPerson ? { mode: 'IN_PERSON', locationId: inPerson } : null
  if (r.mode === 'TELEHEALTH') return p.telehealth ? { mode: 'TELEHEALTH', locationId: primary } : null
  // ANY: in person where the family is, else telehealth; with no location named, wherever the provider is based.
  if (inPerson && r.locationId !== null) return { mode: 'IN_PERSON', locationId: inPerson }
  if (p.telehealth) return { mode: 'TELEHEALTH', locationId: primary }
  return inPerson ? { mode: 'IN_PERSON', locationId: inPerson } : null
}

/**
 * The first requirement a provider fails, or its setting when it meets them all.
 * @returns `{ excluded }` with the reason, or `{ setting }`
 */
export function checkRequirements(
  r: MatchRequirements,
  p: CandidateFacts
): { excluded: ExclusionReason } | { setting: Setting } {
  if (p.onboardingStatus !== 'APPROVED' || p.offboarded) return { excluded: 'NOT_BOOKABLE' }
  if (!p.disciplines.includes(r.discipline)) return { excluded: 'DISCIPLINE' }
  const setting = settingFor(r, p)
  if (!setting) return { excluded: 'SETTING' }
  if (r.ageGroup && p.ageGroups.length > 0 && !p.ageGroups.includes(r.ageGroup)) return { excluded: 'AGE_GROUP' }
  if (!p.acceptingNewClients && !p.seenBefore) return { excluded: 'NOT_ACCEPTING_NEW_CLIENTS' }
  if (r.excludeProviderIds.includes(p.providerId)) return { excluded: 'EXCLUDED_BY_REQUEST' }
  return { setting }
}
