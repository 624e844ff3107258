/**
 * @module What a custom field definition is: the types a centre can choose and the rules for key, label and SELECT
 * options. `key` and `type` are fixed at creation (stored values keep their meaning); label, description,
 * `required`, options and position may change (docs/care-records.md, "Custom fields").
 */
import { z } from '@hono/zod-openapi'

export const CUSTOM_FIELD_TYPES = ['TEXT', 'NUMBER', 'DATE', 'BOOLEAN', 'SELECT'] as const
export type CustomFieldType = (typeof CUSTOM_FIELD_TYPES)[number]

/** The longest TEXT value a field accepts. */
export const MAX_TEXT_LENGTH = 2000
/** The most choices a SELECT field may offer. */
export const MAX_OPTIONS = 200

export const CustomFieldKey = z
  .string()
  .regex(/^[a-z][a-z0-9_]{0,63}$/, 'A key is 1 to 64 lowercase letters, digits or underscores, starting with a letter.')
  .openapi({ example: 'referral_source' })

const Option = z.string().trim().min(1).max(100)

export const CustomFieldOptions = z
  .array(Option)
  .min(1)
  .max(MAX_OPTIONS)
  .refine((options) => new Set(options).size === options.length, {
    message: 'Options must be unique.',
    params: { code: 'duplicate' },
  })
  .openapi({
    description: 'The choices of a SELECT field (required for SELECT, not allowed otherwise).',
    example: ['Physician', 'School', 'Self'],
  })

/** The writable fields of a definition, before the rule that ties options to SELECT. */
export const CustomFieldDefinitionShape = z.strictObject({
  key: CustomFieldKey,
  label: z.string().trim().min(1).max(200).openapi({ example: 'Referral source' }),
  description: z.string().trim().max(1000).optional(),
  type: z.enum(CUSTOM_FIELD_TYPES),
  required: z.boolean().default(false),
  options: CustomFieldOptions.optional(),
  position: z
    .number()
    .int()
    .min(0)
    .max(10_000)
    .default(0)
    .openapi({ description: 'Display order within the location' }),
})

/** A SELECT field has options; no other type has any. */
export function optionsRule(field: { type: CustomFieldType; options?: string[] }, ctx: z.RefinementCtx) {
  if (field.type === 'SELECT' && !field.options) {
    ctx.addIssue({
      code: 'custom',
      path: ['options'],
      message: 'A SELECT field needs options.',
      params: { code: 'required' },
    })
  }
  if (field.type !== 'SELECT' && field.options) {
    ctx.addIssue({
      code: 'custom',
      path: ['options'],
      message: 'Only a SELECT field has options.',
      params: { code: 'not_allowed' },
    })
  }
}

/** The writable fields of a definition; the create body adds `locationId`. */
export const CustomFieldDefinitionFields = CustomFieldDefinitionShape.superRefine(optionsRule)

export type CustomFieldDefinitionInput = z.output<typeof CustomFieldDefinitionFields>

/** The definition as the validator needs it. */
export interface CustomFieldDefinitionRule {
  key: string
  label: string
  type: CustomFieldType
  required: boolean
  options: readonly string[]
  /** Archived definitions are kept so old values stay readable; they accept no new values and require nothing. */
  archived: boolean
}
