/**
 * @module What an assessment record is: which instrument, for which child, by which provider, when it is due, how
 * often it is repeated, and — once completed — its scores per subtest or scale (raw, standard, scaled, percentile,
 * age equivalent, growth). Domain schemas, so a create and the result of a PATCH obey the same rules.
 */
import { z } from '@hono/zod-openapi'
import { CalendarDate } from '../clients/record-fields.ts'
import { isStorableInstant, OFFSET_DATE_TIME } from '../time.ts'
import { KNOWN_INSTRUMENTS } from './instruments.ts'
import { resourceId } from '../id-schema.ts'

/** Longest re-assessment cadence: three years (IDEA Part B's re-evaluation limit). */
export const MAX_CADENCE_DAYS = 3 * 366

/** The writable fields of an assessment. */
export const AssessmentFields = z.strictObject({
  childId: resourceId('child'),
  providerId: resourceId('provider').optional().openapi({ description: 'The provider who administers it' }),
  instrument: z
    .string()
    .trim()
    .min(1)
    .max(100)
    .openapi({
      description: `The instrument; free text, documented spellings: ${Object.keys(KNOWN_INSTRUMENTS).join(', ')}`,
      example: 'PLS-5',
    }),
  dueDate: CalendarDate.optional().openapi({ description: 'When it is due (the reminder workflow counts towards it)' }),
  reassessmentCadenceDays: z.number().int().min(1).max(MAX_CADENCE_DAYS).optional().openapi({
    description:
      'Days after completion the next assessment is due; completing creates it (e.g. 180 for Medicaid re-testing)',
    example: 180,
  }),
})

export type AssessmentFieldsInput = z.output<typeof AssessmentFields>

/** Fields a PATCH may change: everything but the child (an assessment of another child is another assessment). */
export const AssessmentPatchFields = AssessmentFields.omit({ childId: true })

/** Years:months, the way age equivalents are reported (e.g. 3:4 is three years four months). */
const AGE_EQUIVALENT = /^(\d{1,2}):(\d|1[01])$/

export const AssessmentScore = z
  .strictObject({
    subtest: z
      .string()
      .trim()
      .min(1)
      .max(200)
      .openapi({ description: 'Subtest, scale, index or composite', example: 'Auditory Comprehension' }),
    rawScore: z.number().finite().min(0).optional().openapi({ example: 41 }),
    standardScore: z
      .number()
      .finite()
      .min(0)
      .max(250)
      .optional()
      .openapi({ description: 'Mean 100, SD 15', example: 88 }),
    scaledScore: z.number().finite().min(0).max(40).optional().openapi({ description: 'Mean 10, SD 3', example: 8 }),
    percentile: z.number().min(0).max(100).optional().openapi({ example: 21 }),
    ageEquivalent: z
      .string()
      .regex(AGE_EQUIVALENT, 'Years:months, e.g. 3:4.')
      .optional()
      .openapi({ description: 'Years:months', example: '3:4' }),
    growthScore: z
      .number()
      .finite()
      .optional()
      .openapi({ description: 'Growth scale value, where the instrument has one' }),
  })
  .refine(
    (s) =>
      [s.rawScore, s.standardScore, s.scaledScore, s.percentile, s.ageEquivalent, s.growthScore].some(
        (v) => v !== undefined
      ),
    { message: 'Give at least one score.', params: { code: 'required' } }
  )
  // At least one score beside the subtest, in the description's terms: the object is strict, so two members.
  .openapi('AssessmentScore', { minProperties: 2 })

export type AssessmentScoreInput = z.output<typeof AssessmentScore>

export const AssessmentCompletion = z
  .strictObject({
    scores: z
      .array(AssessmentScore)
      .min(1)
      .max(100)
      .refine((scores) => new Set(scores.map((s) => s.subtest)).size === scores.length, {
        message: 'A subtest appears twice.',
        params: { code: 'duplicate' },
      }),
    completedAt: z
      .string()
      .regex(OFFSET_DATE_TIME, 'Must be an ISO 8601 date-time with a UTC offset.')
      .refine(isStorableInstant, 'Not a valid date-time')
      .optional()
      .openapi({ description: 'When it was administered; defaults to now', example: '2026-12-01T10:30:00-06:00' }),
  })
  .openapi('AssessmentCompletion')

export type AssessmentCompletionInput = z.output<typeof AssessmentCompletion>
