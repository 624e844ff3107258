/**
 * @module Validating a client's `custom_fields` against its location's definitions: a pure function, so every rule of
 * definition evolution is unit-tested without a database (test/unit/domain/custom-fields/validate-custom-fields.test.ts).
 *
 * The rules (docs/care-records.md, "Custom fields"):
 * - A value must fit its field's type: TEXT a non-blank string, NUMBER a finite number, DATE a `YYYY-MM-DD` calendar
 *   date, BOOLEAN true or false, SELECT one of the field's current options.
 * - A key no definition of the location knows is refused (`unknown_field`), so typos never pass silently. An archived
 *   definition accepts no new value (`archived_field`), but its stored values stay readable and may be removed.
 * - `null` removes a value (JSON merge patch).
 * - On an update only the keys the patch names are checked: a value stored before its definition changed (an option
 *   since removed) is kept until someone edits that field. Required fields are checked on the result, so a field made
 *   required later does not invalidate old records; it must be filled the next time their custom fields are edited.
 * - A full check (a create, or a client moving to another location, whose definitions are another set) checks every
 *   resulting value.
 */
import type { FieldError } from '../errors.ts'
import { MAX_TEXT_LENGTH, type CustomFieldDefinitionRule } from './custom-field-schema.ts'
import { CALENDAR_DATE } from '../time.ts'

/** A stored custom field value. */
export type CustomFieldValue = string | number | boolean

export type CustomFieldValues = Record<string, CustomFieldValue>

export interface CustomFieldCheck {
  /** Every definition of the location, archived ones included. */
  definitions: readonly CustomFieldDefinitionRule[]
  /** The values stored now ({} for a new client). */
  stored: CustomFieldValues
  /** The request's `custom_fields`: a merge patch of `stored` (`null` removes a key). */
  patch: Record<string, unknown>
  /** `update`: check only the keys in the patch; `full`: check every resulting value. */
  mode: 'update' | 'full'
}

export type CustomFieldResult = { ok: true; values: CustomFieldValues } | { ok: false; errors: FieldError[] }

/** Whether `value` is a real calendar date written YYYY-MM-DD (no 2026-02-30). */
export function isCalendarDate(value: string): boolean {
  if (!CALENDAR_DATE.test(value)) return false
  const date = new Date(`${value}T00:00:00.000Z`)
  return !Number.isNaN(date.getTime()) && date.toISOString().startsWith(value)
}

const pathOf = (key: string) => `custom_fields.${key}`

/** The error for a value of the wrong shape for its field, or undefined when it fits. */
function valueError(field: CustomFieldDefinitionRule, value: unknown): Omit<FieldError, 'path'> | undefined {
  const wrongType = (expected: string) => ({ code: 'invalid_type', message: `"${field.label}" expects ${expected}.` })
  switch (field.type) {
    case 'TEXT':
      if (typeof value !== 'string') return wrongType('text')
      if (value.trim() === '') return { code: 'blank', message: `"${field.label}" is blank; send null to clear it.` }
      if (value.length > MAX_TEXT_LENGTH) {
        return { code: 'too_long', message: `"${field.label}" is longer than ${MAX_TEXT_LENGTH} characters.` }
      }
      return undefined
    case 'NUMBER':
      return typeof value === 'number' && Number.isFinite(value) ? undefined : wrongType('a number')
    case 'DATE':
      if (typeof value !== 'string') return wrongType('a date, YYYY-MM-DD')
      return isCalendarDate(value)
        ? undefined
        : { code: 'invalid_date', message: `"${field.label}" expects a calendar date, YYYY-MM-DD.` }
    case 'BOOLEAN':
      return typeof value === 'boolean' ? undefined : wrongType('true or false')
    case 'SELECT':
      if (typeof value !== 'string') return wrongType('one of its options')
      return field.options.includes(value)
        ? undefined
        : { code: 'invalid_option', message: `"${field.label}" must be one of: ${field.options.join(', ')}.` }
  }
}

/** The error for writing `value` under `key`, or undefined when it is acceptable. */
function writeError(
  fields: Map<string, CustomFieldDefinitionRule>,
  key: string,
  value: unknown
): FieldError | undefined {
  const field = fields.get(key)
  if (!field) {
    return {
      path: pathOf(key),
      code: 'unknown_field',
      message: `No custom field "${key}" is defined for this location.`,
    }
  }
  if (field.archived) {
    return {
      path: pathOf(key),
      code: 'archived_field',
      message: `"${field.label}" is archived: its stored value stays readable but cannot change; send null to remove it.`,
    }
  }
  const error = valueError(field, value)
  return error && { path: pathOf(key), ...error }
}

/**
 * Checks a write of custom field values and computes what to store.
 * @returns the values to store, or one error per offending field (path `custom_fields.<key>`)
 */
export function validateCustomFields({ definitions, stored, patch, mode }: CustomFieldCheck): CustomFieldResult {
  const fields = new Map(definitions.map((field) => [field.key, field]))
  const values: CustomFieldValues = { ...stored }
  const errors: FieldError[] = []

  for (const [key, value] of Object.entries(patch)) {
    if (value === null) {
      // Removing a stored value is always allowed, whatever became of its definition; removing a key nobody
      // defined and nothing stores is most likely a typo.
      if (!(key in stored) && !fields.has(key)) errors.push(writeError(fields, key, value)!)
      delete values[key]
      continue
    }
    const error = writeError(fields, key, value)
    if (error) errors.push(error)
    else values[key] = value as CustomFieldValue
  }

  if (mode === 'full') {
    for (const [key, value] of Object.entries(values)) {
      if (key in patch) continue
      const error = writeError(fields, key, value)
      if (error) errors.push(error)
    }
  }

  for (const field of definitions) {
    if (!field.required || field.archived) continue
    const value = values[field.key]
    const missing = value === undefined || (typeof value === 'string' && value.trim() === '')
    if (missing && !errors.some((e) => e.path === pathOf(field.key))) {
      errors.push({ path: pathOf(field.key), code: 'required', message: `"${field.label}" is required.` })
    }
  }

  return errors.length > 0 ? { ok: false, errors } : { ok: true, values }
}
