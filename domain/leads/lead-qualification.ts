/**
 * @module The qualification rules of a lead. Pure: given the family's needs and the tenant's bookable providers and
 * locations, decide QUALIFIED or DISQUALIFIED and explain each rule in words a coordinator can act on.
 *
 * The rules run as a funnel over the bookable providers (APPROVED, not offboarded, accepting new clients):
 *   1. NEEDS_OFFERED: some provider practises one of the disciplines asked for;
 *   2. AGE_SERVED: some of those serves the child's age band (a provider stating no bands serves every age);
 *   3. LOCATION_SERVED: the place resolves to a location of the tenant (by id, or a postal area that prefixes a
 *      location's postal code) and some of them works there in person or offers telehealth, as the setting allows;
 *   4. PAYER_ACCEPTED: some of them lists the payer in their matching profile.
 * A lead qualifies when one provider meets all four: then matching has someone to rank. When a rule leaves nobody,
 * the later rules are still judged against the providers before it, so every failed rule is named, not just the first.
 */
import { ageGroupOf, type AgeGroup } from '../providers/age-groups.ts'

export const QUALIFICATION_RULES = ['NEEDS_OFFERED', 'AGE_SERVED', 'LOCATION_SERVED', 'PAYER_ACCEPTED'] as const
export type QualificationRule = (typeof QUALIFICATION_RULES)[number]

export type SettingMode = 'IN_PERSON' | 'TELEHEALTH' | 'ANY'

export interface LeadNeeds {
  disciplines: string[]
  ageMonths: number
  payer: string
  settingMode: SettingMode
  locationId: string | null
  postalArea: string | null
}

/** A provider as the rules see it. */
export interface QualifyingProvider {
  providerId: string
  disciplines: string[]
  ageGroups: string[]
  telehealth: boolean
  locationIds: string[]
  payers: string[]
}

export interface QualifyingLocation {
  id: string
  postalCode: string | null
}

export interface QualificationCheck {
  rule: QualificationRule
  passed: boolean
  /** Providers left after this rule (of those the rule was judged against). */
  providers: number
  explanation: string
}

export interface Qualification {
  outcome: 'QUALIFIED' | 'DISQUALIFIED'
  checks: QualificationCheck[]
  /** The needed disciplines some provider offers (what matching runs for). */
  offeredDisciplines: string[]
  ageGroup: AgeGroup
  /** The location the place resolved to, or null. */
  servedLocationId: string | null
}

/** Postal codes compared without spaces or case: `sw1a 1aa` is `SW1A1AA`. */
export const normalisePostal = (value: string) => value.replace(/\s+/g, '').toUpperCase()

/** The location a lead's place names: the id when it is the tenant's, else the first whose postal code the area prefixes. */
export function resolveLocation(
  needs: Pick<LeadNeeds, 'locationId' | 'postalArea'>,
  locations: readonly QualifyingLocation[]
): string | null {
  if (needs.locationId) return locations.some((l) => l.id === needs.locationId) ? needs.locationId : null
  if (!needs.postalArea) return null
  const area = normalisePostal(needs.postalArea)
  const byId = [...locations].sort((a, b) => (a.id < b.id ? -1 : 1))
  return byId.find((l) => l.postalCode !== null && normalisePostal(l.postalCode).startsWith(area))?.id ?? null
}

const plural = (n: number, one: string) => `${n} ${one}${n === 1 ? '' : 's'}`

/**
 * Qualifies a lead.
 * @param providers - the tenant's bookable providers
 */
export function qualifyLead(
  needs: LeadNeeds,
  providers: readonly QualifyingProvider[],
  locations: readonly QualifyingLocation[]
): Qualification {
  const checks: QualificationCheck[] = []
  const ageGroup = ageGroupOf(needs.ageMonths)
  const payer = needs.payer.toUpperCase()
  const servedLocationId = resolveLocation(needs, locations)
  let pool = providers

  /** Applies one rule to the pool; an empty result keeps the pool, so later rules still say something. */
  const judge = (rule: QualificationRule, keep: (p: QualifyingProvider) => boolean, explain: (n: number) => string) => {
    const left = pool.filter(keep)
    checks.push({ rule, passed: left.length > 0, providers: left.length, explanation: explain(left.length) })
    if (left.length > 0) pool = left
  }

  const offeredDisciplines = needs.disciplines.filter((d) => providers.some((p) => p.disciplines.includes(d)))
  const missing = needs.disciplines.filter((d) => !offeredDisciplines.includes(d))
  judge(
    'NEEDS_OFFERED',
    (p) => p.disciplines.some((d) => needs.disciplines.includes(d)),
    (n) =>
      n > 0
        ? `${plural(n, 'bookable provider')} practise ${offeredDisciplines.join(', ')}` +
          (missing.length ? `; nobody offers ${missing.join(', ')}.` : '.')
        : `No bookable provider practises ${needs.disciplines.join(', ')}.`
  )
  judge(
    'AGE_SERVED',
    (p) => p.ageGroups.length === 0 || p.ageGroups.includes(ageGroup),
    (n) =>
      n > 0
        ? `${plural(n, 'provider')} of those serve the ${ageGroup} age band.`
        : `No provider of those serves the ${ageGroup} age band.`
  )
  const inPerson = needs.settingMode !== 'TELEHEALTH'
  const remote = needs.settingMode !== 'IN_PERSON'
  const place = needs.locationId ? `location ${needs.locationId}` : `postal area ${needs.postalArea ?? '(none)'}`
  judge(
    'LOCATION_SERVED',
    (p) =>
      (inPerson && servedLocationId !== null && p.locationIds.includes(servedLocationId)) || (remote && p.telehealth),
    (n) => {
      const where = servedLocationId
        ? `${place} is served by location ${servedLocationId}`
        : `${place} is not near any location of the centre`
      return n > 0
        ? `${where}; ${plural(n, 'provider')} of those can see the family (${needs.settingMode}).`
        : `${where}; no provider of those can see the family ${needs.settingMode === 'ANY' ? 'there or by telehealth' : needs.settingMode}.`
    }
  )
  judge(
    'PAYER_ACCEPTED',
    (p) => p.payers.some((x) => x.toUpperCase() === payer),
    (n) => (n > 0 ? `${plural(n, 'provider')} of those accept ${payer}.` : `No provider of those accepts ${payer}.`)
  )
  return {
    outcome: checks.every((c) => c.passed) ? 'QUALIFIED' : 'DISQUALIFIED',
    checks,
    offeredDisciplines,
    ageGroup,
    servedLocationId,
  }
}
