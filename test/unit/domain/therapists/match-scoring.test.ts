import { describe, expect, it } from 'vitest'
import {
  checkRequirements,
  type CandidateFacts,
  type MatchRequirements,
} from '../../../../domain/therapists/match-filters.ts'
import { ageInMonths } from '../../../../domain/therapists/match-needs.ts'
import { distinct } from '../../../../domain/therapists/match-service.ts'
import {
  MATCH_WEIGHTS,
  compareRanked,
  languageServes,
  scoreProvider,
  scoreUpperBound,
  specialtyCovers,
  type AvailabilityFacts,
  type MatchNeeds,
  type ProviderFacts,
} from '../../../../domain/therapists/match-scoring.ts'
import { inPreferredTimes } from '../../../../domain/therapists/preferred-times.ts'
import { zoneTimeline } from '../../../../domain/availability/zone-timeline.ts'

const needs = (over: Partial<MatchNeeds> = {}): MatchNeeds => ({
  ageGroup: 'PRESCHOOL',
  languages: ['es'],
  conditions: ['F80.1', 'APRAXIA'],
  payer: 'MEDICAID',
  preferredProviderIds: [],
  knownChild: true,
  slotsWanted: 3,
  hasPreferredTimes: true,
  windowDays: 14,
  ...over,
})

const provider = (over: Partial<ProviderFacts> = {}): ProviderFacts => ({
  providerId: 'prv_a',
  languages: ['es-MX'],
  ageGroups: ['PRESCHOOL'],
  specialties: ['F80'],
  payers: ['MEDICAID'],
  seenBefore: false,
  ...over,
})

const open = (over: Partial<AvailabilityFacts> = {}): AvailabilityFacts => ({
  slotCount: 10,
  preferredSlotCount: 10,
  daysToFirstSlot: 0,
  ...over,
})

const points = (score: ReturnType<typeof scoreProvider>) =>
  Object.fromEntries(score.reasons.map((r) => [r.factor, r.points]))

describe('scoreProvider', () => {
  it('weights sum to 100', () => {
    expect(Object.values(MATCH_WEIGHTS).reduce((a, b) => a + b, 0)).toBe(100)
  })

  it('earns each factor its share of the weight and explains it', () => {
    const score = scoreProvider(needs(), provider(), open({ preferredSlotCount: 2, daysToFirstSlot: 7 }))
    expect(points(score)).toEqual({
      language: 20,
      specialty: 10, // F80 covers F80.1; nothing covers APRAXIA
      availability: 13.333, // 2 of 3 wanted slots in the preferred times
      payer: 15,
      ageGroup: 10,
      soonestSlot: 2.5, // first slot 7 of 14 days in
      continuity: 0,
      preferred: 0,
    })
    // preferred is not applicable: 95 possible; 70.833 earned.
    expect(score.score).toBe(74.6)
    expect(score.reasons.find((r) => r.factor === 'preferred')).toMatchObject({
      applicable: false,
      detail: 'No preferred providers named',
    })
    expect(score.reasons.find((r) => r.factor === 'language')!.detail).toBe('Speaks es-MX')
    expect(score.reasons.find((r) => r.factor === 'specialty')!.detail).toBe('Specialises in 1 of the 2 conditions')
  })

  it('leaves factors without a basis out of the denominator', () => {
    const bare = needs({
      languages: [],
      conditions: [],
      payer: null,
      ageGroup: null,
      knownChild: false,
      hasPreferredTimes: false,
    })
    const score = scoreProvider(bare, provider(), open())
    expect(score.reasons.filter((r) => r.applicable).map((r) => r.factor)).toEqual(['availability', 'soonestSlot'])
    expect(score.score).toBe(100)
  })

  it('scores "not stated" as half and a mismatch as nothing', () => {
    const unstated = scoreProvider(needs(), provider({ payers: [], ageGroups: [] }), open())
    expect(points(unstated)).toMatchObject({ payer: 7.5, ageGroup: 5 })
    const other = scoreProvider(needs(), provider({ payers: ['AETNA'], languages: ['en'] }), open())
    expect(points(other)).toMatchObject({ payer: 0, language: 0 })
    expect(other.reasons.find((r) => r.factor === 'payer')!.detail).toBe('Does not accept MEDICAID')
  })

  it('counts all slots, not only preferred ones, when no preferred times were given', () => {
    const score = scoreProvider(
      needs({ hasPreferredTimes: false }),
      provider(),
      open({ slotCount: 1, preferredSlotCount: 0 })
    )
    expect(points(score).availability).toBe(6.667)
    const none = scoreProvider(
      needs(),
      provider(),
      open({ slotCount: 0, preferredSlotCount: 0, daysToFirstSlot: null })
    )
    expect(points(none)).toMatchObject({ availability: 0, soonestSlot: 0 })
  })

  it('gives the same score for the same facts, and an upper bound no availability can beat', () => {
    const facts = open({ preferredSlotCount: 1, daysToFirstSlot: 3 })
    expect(scoreProvider(needs(), provider(), facts)).toEqual(scoreProvider(needs(), provider(), facts))
    const bound = scoreUpperBound(needs(), provider())
    for (const a of [open(), facts, open({ slotCount: 0, preferredSlotCount: 0, daysToFirstSlot: null })]) {
      expect(scoreProvider(needs(), provider(), a).scoreTenths).toBeLessThanOrEqual(bound)
    }
    expect(scoreProvider(needs(), provider(), open()).scoreTenths).toBe(bound)
  })
})

describe('compareRanked', () => {
  it('orders by score, then earliest first slot (none last), then id', () => {
    const list = [
      { providerId: 'prv_c', scoreTenths: 800, firstSlotAt: null },
      { providerId: 'prv_b', scoreTenths: 800, firstSlotAt: 2000 },
      { providerId: 'prv_a', scoreTenths: 800, firstSlotAt: 2000 },
      { providerId: 'prv_d', scoreTenths: 900, firstSlotAt: 9000 },
      { providerId: 'prv_e', scoreTenths: 800, firstSlotAt: 1000 },
    ]
    const order = (l: typeof list) => [...l].sort(compareRanked).map((r) => r.providerId)
    expect(order(list)).toEqual(['prv_d', 'prv_e', 'prv_a', 'prv_b', 'prv_c'])
    expect(order([...list].reverse())).toEqual(order(list))
  })
})

describe('vocabulary matches', () => {
  it('matches languages by tag or by primary language', () => {
    expect(languageServes('es-MX', 'es')).toBe(true)
    expect(languageServes('es', 'es-MX')).toBe(true)
    expect(languageServes('en', 'es')).toBe(false)
  })

  it('matches ICD-10 categories to the codes inside them, and tags exactly', () => {
    expect(specialtyCovers('F80', 'F80.1')).toBe(true)
    expect(specialtyCovers('F80.8', 'F80.81')).toBe(true)
    expect(specialtyCovers('F80', 'F800')).toBe(false)
    expect(specialtyCovers('F80.1', 'F80.2')).toBe(false)
    expect(specialtyCovers('AAC', 'AAC')).toBe(true)
    expect(specialtyCovers('AAC', 'AACX')).toBe(false)
  })

  it('computes whole months of age', () => {
    expect(ageInMonths(new Date('2024-03-15'), new Date('2026-03-14'))).toBe(23)
    expect(ageInMonths(new Date('2024-03-15'), new Date('2026-03-15'))).toBe(24)
    expect(ageInMonths(new Date('2026-03-15'), new Date('2026-01-01'))).toBe(0)
  })
})

describe('checkRequirements', () => {
  const req = (over: Partial<MatchRequirements> = {}): MatchRequirements => ({
    discipline: 'SPEECH_THERAPY',
    mode: 'ANY',
    locationId: 'loc_a',
    ageGroup: 'PRESCHOOL',
    excludeProviderIds: [],
    ...over,
  })
  const cand = (over: Partial<CandidateFacts> = {}): CandidateFacts => ({
    providerId: 'prv_a',
    onboardingStatus: 'APPROVED',
    offboarded: false,
    disciplines: ['SPEECH_THERAPY'],
    ageGroups: [],
    telehealth: false,
    locationIds: ['loc_a'],
    acceptingNewClients: true,
    seenBefore: false,
    ...over,
  })

  it('admits only bookable providers of the discipline in a fitting setting', () => {
    expect(checkRequirements(req(), cand())).toEqual({ setting: { mode: 'IN_PERSON', locationId: 'loc_a' } })
    expect(checkRequirements(req(), cand({ onboardingStatus: 'SUSPENDED' }))).toEqual({ excluded: 'NOT_BOOKABLE' })
    expect(checkRequirements(req(), cand({ offboarded: true }))).toEqual({ excluded: 'NOT_BOOKABLE' })
    expect(checkRequirements(req(), cand({ disciplines: ['PSYCHOLOGY'] }))).toEqual({ excluded: 'DISCIPLINE' })
    expect(checkRequirements(req(), cand({ locationIds: ['loc_b'] }))).toEqual({ excluded: 'SETTING' })
    expect(checkRequirements(req(), cand({ locationIds: ['loc_b'], telehealth: true }))).toEqual({
      setting: { mode: 'TELEHEALTH', locationId: 'loc_b' },
    })
    expect(checkRequirements(req({ mode: 'TELEHEALTH' }), cand())).toEqual({ excluded: 'SETTING' })
    expect(checkRequirements(req({ mode: 'IN_PERSON' }), cand({ locationIds: ['loc_b', 'loc_a'] }))).toEqual({
      setting: { mode: 'IN_PERSON', locationId: 'loc_a' },
    })
  })

  it('honours stated age groups, intake and exclusions; continuity lets a full caseload in', () => {
    expect(checkRequirements(req(), cand({ ageGroups: ['SCHOOL_AGE'] }))).toEqual({ excluded: 'AGE_GROUP' })
    expect(checkRequirements(req({ ageGroup: null }), cand({ ageGroups: ['SCHOOL_AGE'] }))).toHaveProperty('setting')
    expect(checkRequirements(req(), cand({ acceptingNewClients: false }))).toEqual({
      excluded: 'NOT_ACCEPTING_NEW_CLIENTS',
    })
    expect(checkRequirements(req(), cand({ acceptingNewClients: false, seenBefore: true }))).toHaveProperty('setting')
    expect(checkRequirements(req({ excludeProviderIds: ['prv_a'] }), cand())).toEqual({
      excluded: 'EXCLUDED_BY_REQUEST',
    })
  })
})

describe('slots', () => {
  const H = 3_600_000
  it('counts slots that can be booked one after another', () => {
    const grid = [0, 0.25, 0.5, 1, 1.25, 2.5].map((h) => ({ start: h * H, end: (h + 1) * H }))
    expect(distinct(grid).map((s) => s.start / H)).toEqual([0, 1, 2.5])
  })

  it('places slots in preferred windows by local wall-clock time, across a daylight-saving change', () => {
    // Sunday 2026-03-08 in Chicago: 02:00 CST jumps to 03:00 CDT. Monday 16:00 CDT is 21:00 UTC.
    const zone = zoneTimeline('America/Chicago', Date.UTC(2026, 2, 1), Date.UTC(2026, 2, 11))
    const windows = [{ weekdays: ['MONDAY' as const], start: '15:00', end: '18:00' }]
    const at = (iso: string, minutes = 60) => [Date.parse(iso), Date.parse(iso) + minutes * 60_000] as const
    expect(inPreferredTimes(windows, zone, ...at('2026-03-09T21:00:00Z'))).toBe(true) // 16:00 CDT
    expect(inPreferredTimes(windows, zone, ...at('2026-03-09T22:00:00Z'))).toBe(true) // 17:00-18:00
    expect(inPreferredTimes(windows, zone, ...at('2026-03-09T22:30:00Z'))).toBe(false) // ends 18:30
    expect(inPreferredTimes(windows, zone, ...at('2026-03-02T21:00:00Z'))).toBe(true) // 15:00 CST, the week before
    expect(inPreferredTimes(windows, zone, ...at('2026-03-10T21:00:00Z'))).toBe(false) // Tuesday
  })
})
