/** The qualification rules: each one failing on its own, explained; telehealth; postal areas; payer case. */
import { describe, expect, it } from 'vitest'
import {
  qualifyLead,
  resolveLocation,
  type LeadNeeds,
  type QualifyingProvider,
} from '../../../../domain/leads/lead-qualification.ts'

const locations = [
  { id: 'loc_b', postalCode: '78701' },
  { id: 'loc_a', postalCode: 'SW1A 1AA' },
  { id: 'loc_c', postalCode: null },
]

const speech: QualifyingProvider = {
  providerId: 'prv_1',
  disciplines: ['SPEECH_THERAPY'],
  ageGroups: ['PRESCHOOL'],
  telehealth: false,
  locationIds: ['loc_b'],
  payers: ['MEDICAID'],
}

const needs = (over: Partial<LeadNeeds> = {}): LeadNeeds => ({
  disciplines: ['SPEECH_THERAPY'],
  ageMonths: 40,
  payer: 'medicaid',
  settingMode: 'ANY',
  locationId: null,
  postalArea: '787',
  ...over,
})

const failed = (q: ReturnType<typeof qualifyLead>) => q.checks.filter((c) => !c.passed).map((c) => c.rule)

describe('qualifyLead', () => {
  it('qualifies when one provider meets every rule, with an explanation per rule', () => {
    const q = qualifyLead(needs(), [speech], locations)
    expect(q.outcome).toBe('QUALIFIED')
    expect(q.checks.map((c) => c.rule)).toEqual(['NEEDS_OFFERED', 'AGE_SERVED', 'LOCATION_SERVED', 'PAYER_ACCEPTED'])
    expect(q.servedLocationId).toBe('loc_b')
    expect(q.ageGroup).toBe('PRESCHOOL')
    expect(q.checks[3]!.explanation).toBe('1 provider of those accept MEDICAID.')
  })

  it('names a discipline nobody offers and matches on the others', () => {
    const q = qualifyLead(needs({ disciplines: ['SPEECH_THERAPY', 'FEEDING_THERAPY'] }), [speech], locations)
    expect(q.outcome).toBe('QUALIFIED')
    expect(q.offeredDisciplines).toEqual(['SPEECH_THERAPY'])
    expect(q.checks[0]!.explanation).toContain('nobody offers FEEDING_THERAPY')
  })

  it.each([
    ['NEEDS_OFFERED', needs({ disciplines: ['PSYCHOLOGY'] })],
    ['AGE_SERVED', needs({ ageMonths: 100 })],
    ['LOCATION_SERVED', needs({ postalArea: '90210' })],
    ['PAYER_ACCEPTED', needs({ payer: 'AETNA' })],
  ] as const)('disqualifies on %s alone', (rule, lead) => {
    const q = qualifyLead(lead, [speech], locations)
    expect(q.outcome).toBe('DISQUALIFIED')
    expect(failed(q)).toEqual([rule])
  })

  it('names every failing rule, not only the first', () => {
    const q = qualifyLead(needs({ ageMonths: 100, payer: 'AETNA' }), [speech], locations)
    expect(failed(q)).toEqual(['AGE_SERVED', 'PAYER_ACCEPTED'])
  })

  it('needs one provider meeting all rules, not each rule met by someone', () => {
    const other: QualifyingProvider = { ...speech, providerId: 'prv_2', ageGroups: ['SCHOOL_AGE'], payers: ['AETNA'] }
    const q = qualifyLead(needs({ payer: 'AETNA' }), [speech, other], locations)
    expect(q.outcome).toBe('DISQUALIFIED')
    expect(failed(q)).toEqual(['PAYER_ACCEPTED'])
  })

  it('serves a family far away by telehealth, but not when they want in person', () => {
    const remote = { ...speech, telehealth: true }
    expect(qualifyLead(needs({ postalArea: '90210' }), [remote], locations).outcome).toBe('QUALIFIED')
    expect(failed(qualifyLead(needs({ postalArea: '90210', settingMode: 'IN_PERSON' }), [remote], locations))).toEqual([
      'LOCATION_SERVED',
    ])
  })

  it('counts a provider stating no age bands as serving every age', () => {
    expect(qualifyLead(needs({ ageMonths: 300 }), [{ ...speech, ageGroups: [] }], locations).outcome).toBe('QUALIFIED')
  })
})

describe('resolveLocation', () => {
  it('takes an id only when it is one of the tenant’s locations', () => {
    expect(resolveLocation({ locationId: 'loc_a', postalArea: null }, locations)).toBe('loc_a')
    expect(resolveLocation({ locationId: 'loc_x', postalArea: '787' }, locations)).toBeNull()
  })
  it('matches a postal area as a prefix, ignoring spaces and case', () => {
    expect(resolveLocation({ locationId: null, postalArea: 'sw1a' }, locations)).toBe('loc_a')
    expect(resolveLocation({ locationId: null, postalArea: '7870' }, locations)).toBe('loc_b')
    expect(resolveLocation({ locationId: null, postalArea: '1AA' }, locations)).toBeNull()
  })
})
