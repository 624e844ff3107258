/**
 * @module The writable fields of a session (PATCH /v1/sessions/{id}, spec row 5): state, actual times, attendance,
 * billing lines and place of service. Formats are checked here; how fields fit together is session-rules.ts.
 */
import { z } from '@hono/zod-openapi'
import { isStorableInstant, OFFSET_DATE_TIME } from '../time.ts'
import { SESSION_ATTENDANCE, SESSION_STATUSES } from './session-rules.ts'

/**
 * A procedure code: CPT Category I (five digits, e.g. 92507, 97530), Category II or III (four digits then F or T),
 * or HCPCS Level II (a letter A–V then four digits, e.g. G0283).
 */
export const PROCEDURE_CODE = /^(\d{5}|\d{4}[FT]|[A-V]\d{4})$/

/** A CPT/HCPCS modifier: two letters or digits (GN, GO, GP, 59, 95, KX...). */
export const MODIFIER = /^[A-Z0-9]{2}$/

/** Most units one line can carry: 96 fifteen-minute units fill a day. */
export const MAX_UNITS_PER_LINE = 96

const InstantWithOffset = z
  .string()
  .regex(OFFSET_DATE_TIME, 'Must be an ISO 8601 date-time with a UTC offset, e.g. 2026-12-01T09:00:00-06:00')
  .refine(isStorableInstant, {
    message: 'Not a valid date-time.',
    params: { code: 'invalid_date_time' },
  })

export const BillingLine = z
  .strictObject({
    code: z
      .string()
      .regex(PROCEDURE_CODE, 'Must be a CPT code (92507, 0362T, 1234F) or an HCPCS Level II code (G0283).')
      .openapi({
        example: '97530',
      }),
    units: z.number().int().min(1).max(MAX_UNITS_PER_LINE).openapi({
      description: 'Billed units: 1 for untimed codes (e.g. 92507), 15-minute units for timed codes (e.g. 97530)',
      example: 2,
    }),
    modifiers: z
      .array(z.string().regex(MODIFIER, 'A modifier is two letters or digits, e.g. GN, GO, GP, 59, 95.'))
      .max(4)
      .refine((m) => new Set(m).size === m.length, {
        message: 'A modifier appears twice.',
        params: { code: 'duplicate' },
      })
      .default([])
      .openapi({ example: ['GO'] }),
    minutes: z
      .number()
      .int()
      .min(1)
      .max(1440)
      .optional()
      .openapi({ description: 'Treatment minutes of a timed code', example: 30 }),
  })
  .openapi('BillingLine')

export type BillingLineInput = z.output<typeof BillingLine>

const lineKey = (line: BillingLineInput) => `${line.code}:${[...line.modifiers].sort().join('+')}`

/** The writable fields of a session. */
export const SessionFields = z.strictObject({
  status: z.enum(SESSION_STATUSES),
  actualStartedAt: InstantWithOffset.optional().openapi({ example: '2026-12-01T09:04:00-06:00' }),
  actualEndedAt: InstantWithOffset.optional().openapi({ example: '2026-12-01T09:52:00-06:00' }),
  attendance: z.enum(SESSION_ATTENDANCE).optional(),
  billingCodes: z
    .array(BillingLine)
    .max(20)
    .superRefine((lines, ctx) => {
      const seen = new Set<string>()
      lines.forEach((line, index) => {
        const key = lineKey(line)
        if (seen.has(key)) {
          ctx.addIssue({
            code: 'custom',
            path: [index, 'code'],
            message: 'The same code with the same modifiers appears twice: add the units to one line.',
            params: { code: 'duplicate' },
          })
        }
        seen.add(key)
      })
    })
    .default([]),
  placeOfService: z
    .string()
    .regex(
      /^(0[1-9]|[1-9]\d)$/,
      'A CMS place-of-service code: two digits, e.g. 11 (office), 12 (home), 03 (school), 02 or 10 (telehealth).'
    )
    .optional(),
  telehealth: z.boolean().default(false),
})

export type SessionFieldsInput = z.output<typeof SessionFields>
