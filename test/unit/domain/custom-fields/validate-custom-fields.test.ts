import { describe, expect, it } from 'vitest'
import type { CustomFieldDefinitionRule } from '../../../../domain/custom-fields/custom-field-schema.ts'
import { validateCustomFields, type CustomFieldCheck } from '../../../../domain/custom-fields/validate-custom-fields.ts'

const field = (
  key: string,
  type: CustomFieldDefinitionRule['type'],
  extra: Partial<CustomFieldDefinitionRule> = {}
) => ({
  key,
  label: key.replace(/_/g, ' '),
  type,
  required: false,
  options: [],
  archived: false,
  ...extra,
})

const definitions: CustomFieldDefinitionRule[] = [
  field('school', 'TEXT'),
  field('siblings', 'NUMBER'),
  field('intake_date', 'DATE'),
  field('photo_consent', 'BOOLEAN'),
  field('referral', 'SELECT', { options: ['Physician', 'School', 'Self'] }),
]

const check = (patch: Record<string, unknown>, overrides: Partial<CustomFieldCheck> = {}) =>
  validateCustomFields({ definitions, stored: {}, patch, mode: 'full', ...overrides })

const errorsOf = (result: ReturnType<typeof validateCustomFields>) =>
  result.ok ? [] : result.errors.map((e) => `${e.path}:${e.code}`)

describe('custom field values by type', () => {
  it('accepts a value of every type that fits its definition', () => {
    const values = {
      school: 'Lincoln Elementary',
      siblings: 2,
      intake_date: '2026-01-12',
      photo_consent: false,
      referral: 'School',
    }
    expect(check(values)).toEqual({ ok: true, values })
  })

  it.each([
    ['school', 42, 'invalid_type'],
    ['school', '   ', 'blank'],
    ['school', 'x'.repeat(2001), 'too_long'],
    ['siblings', '2', 'invalid_type'],
    ['siblings', true, 'invalid_type'],
    ['intake_date', '2026-02-30', 'invalid_date'],
    ['intake_date', '12/01/2026', 'invalid_date'],
    ['intake_date', 20260112, 'invalid_type'],
    ['photo_consent', 'yes', 'invalid_type'],
    ['referral', 'Friend', 'invalid_option'],
    ['referral', 1, 'invalid_type'],
  ])('refuses %s = %j with %s', (key, value, code) => {
    const result = check({ [key]: value })
    expect(errorsOf(result)).toEqual([`custom_fields.${key}:${code}`])
  })

  it('names the allowed options in the message of an invalid option', () => {
    const result = check({ referral: 'Friend' })
    expect(result.ok).toBe(false)
    if (!result.ok) expect(result.errors[0]!.message).toContain('Physician, School, Self')
  })

  it('refuses keys no definition knows, and reports every bad field at once', () => {
    expect(errorsOf(check({ shcool: 'typo', siblings: 'two', referral: 'School' }))).toEqual([
      'custom_fields.shcool:unknown_field',
      'custom_fields.siblings:invalid_type',
    ])
  })
})

describe('required fields', () => {
  const withRequired = [...definitions, field('consent_on_file', 'BOOLEAN', { required: true })]

  it('must be present on a create', () => {
    expect(errorsOf(check({}, { definitions: withRequired }))).toEqual(['custom_fields.consent_on_file:required'])
    expect(check({ consent_on_file: false }, { definitions: withRequired }).ok).toBe(true)
  })

  it('reports a bad value of a required field once, as the bad value', () => {
    expect(errorsOf(check({ consent_on_file: 'yes' }, { definitions: withRequired }))).toEqual([
      'custom_fields.consent_on_file:invalid_type',
    ])
  })

  it('cannot be removed with null', () => {
    const result = check(
      { consent_on_file: null },
      { definitions: withRequired, stored: { consent_on_file: true }, mode: 'update' }
    )
    expect(errorsOf(result)).toEqual(['custom_fields.consent_on_file:required'])
  })
})

describe('definition evolution', () => {
  it('a field made required later does not touch old values, but must be filled when custom fields are edited', () => {
    const later = [...definitions, field('consent_on_file', 'BOOLEAN', { required: true })]
    const stored = { school: 'Lincoln Elementary' }
    // Editing custom fields makes the record meet today's definitions.
    expect(errorsOf(check({ siblings: 1 }, { definitions: later, stored, mode: 'update' }))).toEqual([
      'custom_fields.consent_on_file:required',
    ])
    expect(check({ siblings: 1, consent_on_file: true }, { definitions: later, stored, mode: 'update' })).toEqual({
      ok: true,
      values: { school: 'Lincoln Elementary', siblings: 1, consent_on_file: true },
    })
  })

  it('keeps values of archived definitions readable, refuses new ones, and lets them be removed', () => {
    const archived = definitions.map((d) => (d.key === 'school' ? { ...d, archived: true } : d))
    const stored = { school: 'Lincoln Elementary', siblings: 2 }
    expect(check({ siblings: 3 }, { definitions: archived, stored, mode: 'update' })).toEqual({
      ok: true,
      values: { school: 'Lincoln Elementary', siblings: 3 },
    })
    expect(errorsOf(check({ school: 'Other' }, { definitions: archived, stored, mode: 'update' }))).toEqual([
      'custom_fields.school:archived_field',
    ])
    expect(check({ school: null }, { definitions: archived, stored, mode: 'update' })).toEqual({
      ok: true,
      values: { siblings: 2 },
    })
    expect(errorsOf(check({ school: 'New' }, { definitions: archived }))).toEqual([
      'custom_fields.school:archived_field',
    ])
  })

  it('an archived required field requires nothing', () => {
    const archived = [field('old_consent', 'BOOLEAN', { required: true, archived: true })]
    expect(check({}, { definitions: archived })).toEqual({ ok: true, values: {} })
  })

  it('keeps a stored value whose option was removed until the field is edited', () => {
    const fewer = definitions.map((d) => (d.key === 'referral' ? { ...d, options: ['Physician'] } : d))
    const stored = { referral: 'School' }
    expect(check({ siblings: 1 }, { definitions: fewer, stored, mode: 'update' })).toEqual({
      ok: true,
      values: { referral: 'School', siblings: 1 },
    })
    expect(errorsOf(check({ referral: 'School' }, { definitions: fewer, stored, mode: 'update' }))).toEqual([
      'custom_fields.referral:invalid_option',
    ])
  })

  it('accepts a newly added option', () => {
    const more = definitions.map((d) => (d.key === 'referral' ? { ...d, options: [...d.options, 'Hospital'] } : d))
    expect(check({ referral: 'Hospital' }, { definitions: more }).ok).toBe(true)
  })

  it('removing with null: a stored key always, an unknown key never', () => {
    const stored = { legacy_key: 'kept from an import' }
    expect(check({ legacy_key: null }, { stored, mode: 'update' })).toEqual({ ok: true, values: {} })
    expect(errorsOf(check({ never_defined: null }, { mode: 'update' }))).toEqual([
      'custom_fields.never_defined:unknown_field',
    ])
    // A defined key with nothing stored: removing it is a no-op.
    expect(check({ school: null }, { mode: 'update' })).toEqual({ ok: true, values: {} })
  })

  it('a full check (a move to another location) checks every carried-over value against the new definitions', () => {
    const elsewhere = [field('school', 'NUMBER')]
    const stored = { school: 'Lincoln Elementary', siblings: 2 }
    expect(errorsOf(check({}, { definitions: elsewhere, stored, mode: 'full' }))).toEqual([
      'custom_fields.school:invalid_type',
      'custom_fields.siblings:unknown_field',
    ])
    expect(check({ school: 7, siblings: null }, { definitions: elsewhere, stored, mode: 'full' })).toEqual({
      ok: true,
      values: { school: 7 },
    })
  })
})
