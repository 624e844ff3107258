/**
 * @module How therapist matching scores a provider for a child's needs: a fixed table of weighted factors, each
 * earning a share of its weight with a one-line reason. Pure (no I/O, no clock): the same needs and facts always give
 * the same score and the same reasons, so the ranking is reproducible and every point can be explained.
 *
 * A factor the request gives no basis for (no language asked, no payer named...) is *not applicable*: it is shown
 * with `applicable: false` and left out of the denominator, so the score is the share of the applicable weight the
 * provider earned, 0 to 100 with one decimal. Providers of one request are always scored over the same factors.
 * Points are counted in thousandths of a point (integers), so equal facts give exactly equal scores.
 */
import type { AgeGroup } from '../providers/age-groups.ts'

/** The factors and their weights (they sum to 100). Stable: part of the documented contract (docs/marketplace.md). */
export const MATCH_WEIGHTS = {
  language: 20,
  specialty: 20,
  availability: 20,
  payer: 15,
  ageGroup: 10,
  soonestSlot: 5,
  continuity: 5,
  preferred: 5,
} as const

export type MatchFactor = keyof typeof MATCH_WEIGHTS

export const MATCH_FACTORS = Object.keys(MATCH_WEIGHTS) as MatchFactor[]

/** What the child needs, resolved from the request and the child's record. */
export interface MatchNeeds {
  /** The child's age band, when the age is known. */
  ageGroup: AgeGroup | null
  /** Canonical BCP 47 tags; any one spoken is a match. Empty: not asked. */
  languages: string[]
  /** ICD-10-CM codes and focus tags, upper case. Empty: none given. */
  conditions: string[]
  payer: string | null
  preferredProviderIds: string[]
  /** Whether a child record was named, so continuity of care can be judged. */
  knownChild: boolean
  /** How many slots the family wants to choose from. */
  slotsWanted: number
  /** Whether preferred times were given: availability then counts only slots inside them. */
  hasPreferredTimes: boolean
  /** Length of the search window in whole days. */
  windowDays: number
}

/** What is known about a provider, as loaded. */
export interface ProviderFacts {
  providerId: string
  languages: string[]
  ageGroups: string[]
  specialties: string[]
  /** Empty: not stated. */
  payers: string[]
  /** The child has completed appointments with this provider. */
  seenBefore: boolean
}

/** What the availability engine found for the provider in the search window. */
export interface AvailabilityFacts {
  /** Slots that could all be booked, one after another (none overlapping). */
  slotCount: number
  /** The same, counting only slots inside the preferred times. */
  preferredSlotCount: number
  /** Whole days from the start of the window to the first counted slot (preferred when preferred times were given). */
  daysToFirstSlot: number | null
}

export interface MatchReason {
  factor: MatchFactor
  weight: number
  applicable: boolean
  /** Share of the weight earned, 0 to 1 (rounded to 3 decimals for display). */
  value: number
  /** Points earned: weight × value (rounded to 3 decimals for display). */
  points: number
  detail: string
}

export interface ProviderScore {
  /** 0 to 100, one decimal. */
  score: number
  /** Score in tenths, the integer rankings compare. */
  scoreTenths: number
  reasons: MatchReason[]
}

/** A factor's outcome: earned share as a fraction, or not applicable. */
type Outcome = { applicable: false; detail: string } | { applicable: true; num: number; den: number; detail: string }

const na = (detail: string): Outcome => ({ applicable: false, detail })
const share = (num: number, den: number, detail: string): Outcome => ({ applicable: true, num, den, detail })

/** Whether a provider's language tag serves a wanted one: the same tag, or the same language in another region. */
export function languageServes(spoken: string, wanted: string): boolean {
  const base = (tag: string) => tag.split('-')[0]!.toLowerCase()
  return spoken === wanted || base(spoken) === base(wanted)
}

/**
 * Whether a provider's specialty covers a condition: the same tag or code, or an ICD-10 category containing the code
 * (`F80` covers `F80.1` and `F80.81`; `F80.8` covers `F80.81`).
 */
export function specialtyCovers(specialty: string, condition: string): boolean {
  if (specialty === condition) return true
  if (condition.startsWith(`${specialty}.`)) return true
  return specialty.includes('.') && condition.startsWith(specialty)
}

/** The outcome of every factor, before points. Exported for the unit tests; {@link scoreProvider} is the API. */
export function factorOutcomes(
  needs: MatchNeeds,
  p: ProviderFacts,
  a: AvailabilityFacts | null
): Record<MatchFactor, Outcome> {
  const spoken = needs.languages.find((wanted) => p.languages.some((tag) => languageServes(tag, wanted)))
  const covered = needs.conditions.filter((c) => p.specialties.some((s) => specialtyCovers(s, c))).length
  const counted = a ? (needs.hasPreferredTimes ? a.preferredSlotCount : a.slotCount) : 0
  const where = needs.hasPreferredTimes ? ' in the preferred times' : ''
  return {
    language:
      needs.languages.length === 0
        ? na('No language asked for')
        : spoken
          ? share(1, 1, `Speaks ${p.languages.find((tag) => languageServes(tag, spoken))}`)
          : share(0, 1, `Speaks none of ${needs.languages.join(', ')}`),
    specialty:
      needs.conditions.length === 0
        ? na('No diagnoses or focus areas given')
        : share(
            covered,
            needs.conditions.length,
            `Specialises in ${covered} of the ${needs.conditions.length} conditions`
          ),
    availability: a
      ? share(
          Math.min(counted, needs.slotsWanted),
          needs.slotsWanted,
          `${counted} separate slot${counted === 1 ? '' : 's'}${where} in ${needs.windowDays} days (${needs.slotsWanted} wanted)`
        )
      : share(0, 1, 'Availability not computed'),
    payer:
      needs.payer === null
        ? na('No payer named')
        : p.payers.length === 0
          ? share(1, 2, 'Accepted payers not stated')
          : p.payers.includes(needs.payer)
            ? share(1, 1, `Accepts ${needs.payer}`)
            : share(0, 1, `Does not accept ${needs.payer}`),
    ageGroup:
      needs.ageGroup === null
        ? na('Age not known')
        : p.ageGroups.length === 0
          ? share(1, 2, 'Age groups served not stated')
          : share(1, 1, `Serves ${needs.ageGroup}`),
    soonestSlot:
      a === null || a.daysToFirstSlot === null
        ? share(0, 1, `No slot${where} in ${needs.windowDays} days`)
        : share(
            needs.windowDays - a.daysToFirstSlot,
            needs.windowDays,
            a.daysToFirstSlot === 0
              ? `First slot${where} within a day`
              : `First slot${where} in ${a.daysToFirstSlot} days`
          ),
    continuity: !needs.knownChild
      ? na('No child record named')
      : p.seenBefore
        ? share(1, 1, 'Has seen the child before')
        : share(0, 1, 'Has not seen the child before'),
    preferred:
      needs.preferredProviderIds.length === 0
        ? na('No preferred providers named')
        : needs.preferredProviderIds.includes(p.providerId)
          ? share(1, 1, 'Named as preferred')
          : share(0, 1, 'Not among the preferred providers'),
  }
}

const round3 = (x: number) => Math.round(x * 1000) / 1000

/**
 * Scores a provider.
 * @param a - availability in the window; null gives the availability factors nothing (used for upper bounds)
 */
export function scoreProvider(needs: MatchNeeds, provider: ProviderFacts, a: AvailabilityFacts | null): ProviderScore {
  const outcomes = factorOutcomes(needs, provider, a)
  let earned = 0
  let possible = 0
  const reasons = MATCH_FACTORS.map((factor): MatchReason => {
    const weight = MATCH_WEIGHTS[factor]
    const o = outcomes[factor]
    if (!o.applicable) return { factor, weight, applicable: false, value: 0, points: 0, detail: o.detail }
    // Thousandths of a point, rounded once per factor: integers from here on.
    const milli = Math.round((weight * 1000 * o.num) / o.den)
    earned += milli
    possible += weight * 1000
    return { factor, weight, applicable: true, value: round3(o.num / o.den), points: milli / 1000, detail: o.detail }
  })
  const scoreTenths = possible === 0 ? 0 : Math.round((earned * 1000) / possible)
  return { score: scoreTenths / 10, scoreTenths, reasons }
}

/**
 * The best score a provider could reach whatever its availability: every availability point earned. Providers whose
 * bound is below the last listed score need no availability computed (match-service.ts).
 */
export function scoreUpperBound(needs: MatchNeeds, provider: ProviderFacts): number {
  const perfect: AvailabilityFacts = {
    slotCount: needs.slotsWanted,
    preferredSlotCount: needs.slotsWanted,
    daysToFirstSlot: 0,
  }
  return scoreProvider(needs, provider, perfect).scoreTenths
}

/** A scored provider, as ranked. */
export interface Ranked {
  providerId: string
  scoreTenths: number
  /** Start of the first offered slot (ms), null when none. */
  firstSlotAt: number | null
}

/**
 * The ranking order: higher score first; then the earlier first slot (a provider with none last); then the provider
 * id, so equal candidates always come out in the same order.
 */
export function compareRanked(a: Ranked, b: Ranked): number {
  if (a.scoreTenths !== b.scoreTenths) return b.scoreTenths - a.scoreTenths
  const fa = a.firstSlotAt ?? Number.POSITIVE_INFINITY
  const fb = b.firstSlotAt ?? Number.POSITIVE_INFINITY
  if (fa !== fb) return fa < fb ? -1 : 1
  return a.providerId < b.providerId ? -1 : a.providerId > b.providerId ? 1 : 0
}
