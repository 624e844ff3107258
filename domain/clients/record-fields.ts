/**
 * @module Field schemas shared by the care records (clients, children, pets): names, calendar dates, language tags,
 * phone numbers, and the boolean query flag. Domain schemas, so the same rules hold for a create and for the result
 * of a PATCH.
 */
import { z } from '@hono/zod-openapi'
import { isCalendarDate } from '../custom-fields/validate-custom-fields.ts'

export const PersonName = z.string().trim().min(1).max(100)

/** A calendar date, YYYY-MM-DD. */
export const CalendarDate = z
  .string()
  .refine(isCalendarDate, { message: 'Must be a calendar date, YYYY-MM-DD.', params: { code: 'invalid_date' } })
  .openapi({ format: 'date', example: '2025-03-14' })

/** A BCP 47 language tag, stored in its canonical form (`en-us` → `en-US`). */
export const LanguageTag = z
  .string()
  .max(35)
  .transform((tag, ctx) => {
    try {
      const [canonical] = Intl.getCanonicalLocales(tag)
      if (canonical) return canonical
    } catch {
      // RangeError: not a well-formed tag
    }
    ctx.addIssue({
      code: 'custom',
      message: 'Not a BCP 47 language tag, e.g. en, es-MX.',
      params: { code: 'invalid_language' },
    })
    return z.NEVER
  })
  .openapi({ type: 'string', example: 'es-MX', description: 'BCP 47 language tag' })

/** A phone number in E.164 form, the one form every SMS and telephony provider accepts. */
export const PhoneNumber = z
  .string()
  .regex(/^\+[1-9]\d{6,14}$/, 'Must be an E.164 phone number, e.g. +13125550100.')
  .openapi({ example: '+13125550100' })

/** A free-text note of at most `max` characters. */
export const Note = (max: number) => z.string().trim().min(1).max(max)

/** `?archived=true|false` (z.coerce.boolean would read "false" as true). */
export const BooleanQuery = (name: string, description: string) =>
  z
    .enum(['true', 'false'])
    .transform((value) => value === 'true')
    .optional()
    .openapi({ param: { name, in: 'query' }, description, type: 'boolean' })
