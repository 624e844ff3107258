import { describe, expect, it } from 'vitest'
import { ChildFields } from '../../../../domain/children/child-schema.ts'
import { earlyInterventionColumns, earlyInterventionOf } from '../../../../domain/early-intervention/ei-enrolment.ts'
import { assignGoalIds } from '../../../../domain/children/goals.ts'
import { ClientFields } from '../../../../domain/clients/client-schema.ts'
import { CustomFieldDefinitionFields } from '../../../../domain/custom-fields/custom-field-schema.ts'
import { newId } from '../../../../domain/ids.ts'
import { fieldErrorsOf } from '../../../../domain/merge-patch.ts'
import { PetFields } from '../../../../domain/pets/pet-schema.ts'

const child = { firstName: 'Maya', lastName: 'Okafor', dateOfBirth: '2023-04-18' }
/** Client ids of the shape the API issues: another shape names no client and is refused as `not_found`. */
const [clientA, clientB] = [newId('client'), newId('client')]

/** `path:code` of every error of a parse, or [] when it succeeds. */
function problems(schema: { safeParse(v: unknown): { success: boolean; error?: unknown } }, value: unknown) {
  const parsed = schema.safeParse(value)
  return parsed.success ? [] : fieldErrorsOf(parsed.error as never).map((e) => `${e.path}:${e.code}`)
}

describe('child records', () => {
  it('keeps the original create contract: names and date of birth suffice', () => {
    expect(ChildFields.parse(child)).toEqual({ ...child, languages: [], clients: [], diagnoses: [], goals: [] })
  })

  it('canonicalises language tags and refuses malformed ones', () => {
    expect(ChildFields.parse({ ...child, languages: ['EN', 'es-mx'] }).languages).toEqual(['en', 'es-MX'])
    expect(problems(ChildFields, { ...child, languages: ['en', 'not a tag!'] })).toEqual([
      'languages.1:invalid_language',
    ])
    expect(problems(ChildFields, { ...child, languages: ['en', 'EN'] })).toEqual(['languages.1:duplicate'])
  })

  it('checks ICD-10 codes and refuses a diagnosis listed twice', () => {
    expect(
      problems(ChildFields, { ...child, diagnoses: [{ code: 'F80.1' }, { code: 'R62.50', system: 'ICD_10' }] })
    ).toEqual([])
    expect(problems(ChildFields, { ...child, diagnoses: [{ code: 'speech delay' }] })).toEqual([
      'diagnoses.0.code:invalid_code',
    ])
    expect(problems(ChildFields, { ...child, diagnoses: [{ code: 'speech delay', system: 'OTHER' }] })).toEqual([])
    expect(problems(ChildFields, { ...child, diagnoses: [{ code: 'F80.1' }, { code: 'F80.1' }] })).toEqual([
      'diagnoses.1:duplicate',
    ])
  })

  it('allows at most one primary contact and each client once', () => {
    const link = (clientId: string, primaryContact = false) => ({ clientId, relationship: 'MOTHER', primaryContact })
    expect(problems(ChildFields, { ...child, clients: [link(clientA, true), link(clientB, true)] })).toEqual([
      'clients:several_primary_contacts',
    ])
    expect(problems(ChildFields, { ...child, clients: [link(clientA), link(clientA)] })).toEqual([
      'clients.1:duplicate',
    ])
    expect(problems(ChildFields, { ...child, clients: [{ clientId: clientA, relationship: 'AUNT' }] })).toEqual([
      'clients.0.relationship:invalid_value',
    ])
  })

  it('orders early-intervention dates after the referral and the referral after birth', () => {
    const ei = (e: object) => ({ ...child, earlyIntervention: { referralDate: '2024-01-10', ...e } })
    expect(problems(ChildFields, ei({ initialIfspDate: '2024-02-20', lastIfspReviewDate: '2024-08-20' }))).toEqual([])
    expect(problems(ChildFields, ei({ initialIfspDate: '2024-01-09' }))).toEqual([
      'earlyIntervention.initialIfspDate:before_referral',
    ])
    expect(problems(ChildFields, ei({ lastIfspReviewDate: '2024-08-20' }))).toEqual([
      'earlyIntervention.lastIfspReviewDate:requires_initial_ifsp',
    ])
    expect(problems(ChildFields, ei({ initialIfspDate: '2024-02-20', lastIfspReviewDate: '2024-02-19' }))).toEqual([
      'earlyIntervention.lastIfspReviewDate:before_initial_ifsp',
    ])
    expect(problems(ChildFields, ei({ referralDate: '2023-01-01' }))).toEqual([
      'earlyIntervention.referralDate:before_birth',
    ])
    expect(problems(ChildFields, { ...child, earlyIntervention: { consentDate: '2024-01-10' } })).toEqual([
      'earlyIntervention.referralDate:required',
    ])
  })

  it('stores an enrolment in the ei_* columns and reads it back unchanged', () => {
    const enrolment = {
      referralDate: '2024-01-10',
      referralSource: 'PHYSICIAN' as const,
      initialIfspDate: '2024-02-20',
      serviceCoordinator: { name: 'Rosa Diaz', phone: '+13125550100' },
    }
    const columns = earlyInterventionColumns(enrolment)
    expect(columns.eiReferralDate).toEqual(new Date('2024-01-10T00:00:00.000Z'))
    expect(columns.eiConsentDate).toBeNull()
    expect(earlyInterventionOf({ ...columns, eiServiceCoordinator: enrolment.serviceCoordinator })).toEqual(enrolment)
    const none = earlyInterventionColumns(undefined)
    expect(earlyInterventionOf({ ...none, eiServiceCoordinator: null })).toBeUndefined()
  })
})

describe('goal ids', () => {
  let n = 0
  const next = () => `gol_${++n}`

  it('keeps the ids of existing goals and gives new goals new ones', () => {
    const existing = [{ id: 'gol_a', description: 'Old', status: 'ACTIVE' }]
    const result = assignGoalIds(
      existing,
      [
        { id: 'gol_a', description: 'Old, reworded', status: 'MET' },
        { description: 'New', status: 'ACTIVE', discipline: 'SPEECH_THERAPY' },
      ],
      next
    )
    expect(result).toEqual({
      ok: true,
      goals: [
        { id: 'gol_a', description: 'Old, reworded', status: 'MET' },
        { id: 'gol_1', description: 'New', status: 'ACTIVE', discipline: 'SPEECH_THERAPY' },
      ],
    })
  })

  it('refuses an id that is not one of the child’s goals', () => {
    const result = assignGoalIds([], [{ id: 'gol_elsewhere', description: 'X', status: 'ACTIVE' }], next)
    expect(result.ok).toBe(false)
    if (!result.ok) expect(result.errors.map((e) => `${e.path}:${e.code}`)).toEqual(['goals.0.id:unknown_goal'])
  })
})

describe('client, pet and custom field definition schemas', () => {
  it('clients: E.164 phones, real emails, known roles, ISO country codes', () => {
    expect(
      problems(ClientFields, { firstName: 'A', lastName: 'B', phone: '+13125550100', roles: ['PARENT', 'PAYER'] })
    ).toEqual([])
    expect(
      problems(ClientFields, {
        firstName: 'A',
        lastName: 'B',
        phone: '312-555-0100',
        email: 'nope',
        roles: ['BOSS'],
        address: { country: 'USA' },
      })
    ).toEqual([
      'email:invalid_format',
      'phone:invalid_format',
      'address.country:invalid_format',
      'roles.0:invalid_value',
    ])
  })

  it('pets: only a therapy animal carries a certification', () => {
    const pet = { ownerClientId: clientA, name: 'Biscuit', species: 'DOG' }
    expect(problems(PetFields, { ...pet, therapyAnimal: true, certification: { registry: 'Pet Partners' } })).toEqual(
      []
    )
    expect(problems(PetFields, { ...pet, certification: { registry: 'Pet Partners' } })).toEqual([
      'certification:requires_therapy_animal',
    ])
  })

  it('definitions: options for SELECT fields only, unique, and well-formed keys', () => {
    const def = { key: 'referral', label: 'Referral', type: 'SELECT', options: ['A', 'B'] }
    expect(problems(CustomFieldDefinitionFields, def)).toEqual([])
    expect(problems(CustomFieldDefinitionFields, { ...def, options: undefined })).toEqual(['options:required'])
    expect(problems(CustomFieldDefinitionFields, { ...def, options: ['A', 'A'] })).toEqual(['options:duplicate'])
    expect(problems(CustomFieldDefinitionFields, { ...def, type: 'TEXT' })).toEqual(['options:not_allowed'])
    expect(problems(CustomFieldDefinitionFields, { ...def, key: 'Referral Source' })).toEqual(['key:invalid_format'])
  })
})
