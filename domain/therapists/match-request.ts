/**
 * @module The body of `POST /v1/therapists/match`: the child's needs (a child record, or explicit facts, or both:
 * explicit facts win), the setting, the payer, preferred times and other preferences, and the search window.
 */
import { z } from '@hono/zod-openapi'
import { MAX_DURATION_MINUTES } from '../appointments/appointment-rules.ts'
import { WEEKDAYS, minutesOfDay } from '../availability/weekly-hours.ts'
import { DisciplineSchema } from '../catalogue/disciplines.ts'
import { isStorableInstant, OFFSET_DATE_TIME } from '../time.ts'
import { resourceId } from '../id-schema.ts'

export const MAX_MATCH_WINDOW_DAYS = 31
export const MAX_MATCH_RESULTS = 50

const START = /^([01]\d|2[0-3]):[0-5]\d$/
const END = /^(([01]\d|2[0-3]):[0-5]\d|24:00)$/
const ids = (max: number) => z.array(z.string().min(1).max(64)).max(max)

/**
 * A tag as matching stores and compares it: a condition of the child (an ICD-10 code or a focus tag), and on a
 * provider's matching profile its specialties (compared with the conditions) and payers. One schema, so conditions
 * and specialties are normalised alike (trimmed, upper case).
 */
export const Condition = z
  .string()
  .trim()
  .min(1)
  .max(40)
  .regex(/^[A-Za-z0-9._-]+$/, 'Letters, digits, dots, dashes and underscores')
  .transform((s) => s.toUpperCase())

export const PreferredWindowSchema = z
  .strictObject({
    weekdays: z.array(z.enum(WEEKDAYS)).min(1).max(7),
    start: z.string().regex(START, 'A local time, HH:MM').openapi({ example: '15:00' }),
    end: z.string().regex(END, 'A local time, HH:MM, at most 24:00').openapi({ example: '18:00' }),
  })
  .refine((w) => !START.test(w.start) || !END.test(w.end) || minutesOfDay(w.end) > minutesOfDay(w.start), {
    message: 'end must be after start',
    path: ['end'],
  })
  .openapi('PreferredWindow')

export const MatchRequestSchema = z
  .strictObject({
    childId: resourceId('child')
      .optional()
      .openapi({
        description:
          'A child record: its age, languages, diagnoses and location fill whatever the request leaves out, ' +
          'and providers who have seen the child score for continuity.',
      }),
    discipline: DisciplineSchema,
    ageMonths: z.number().int().min(0).max(1200).optional().openapi({ description: "The child's age in whole months" }),
    languages: z
      .array(z.string().min(2).max(35))
      .max(10)
      .optional()
      .openapi({
        description:
          'BCP 47 tags the family can have therapy in; any one is a match (`es` and `es-MX` match each other)',
        example: ['es'],
      }),
    diagnoses: z
      .array(Condition)
      .max(50)
      .optional()
      .openapi({ description: 'ICD-10-CM codes', example: ['F80.1'] }),
    focusAreas: z
      .array(Condition)
      .max(50)
      .optional()
      .openapi({
        description: 'Focus tags matched against providers’ specialties (e.g. STUTTERING, AAC, FEEDING)',
        example: ['APRAXIA'],
      }),
    setting: z
      .strictObject({
        mode: z.enum(['IN_PERSON', 'TELEHEALTH', 'ANY']).default('ANY'),
        locationId: resourceId('location').optional(),
      })
      .optional()
      .openapi({
        description:
          "IN_PERSON at `locationId` (default: the child's location); TELEHEALTH; ANY (default): in person there, else telehealth",
      }),
    payer: z
      .string()
      .trim()
      .min(1)
      .max(64)
      .optional()
      .openapi({ description: 'A payer code, e.g. MEDICAID', example: 'MEDICAID' }),
    preferredTimes: z
      .strictObject({
        timeZone: z.string().min(1).max(64).openapi({ example: 'America/Chicago' }),
        windows: z.array(PreferredWindowSchema).min(1).max(21),
      })
      .optional(),
    preferences: z
      .strictObject({
        preferredProviderIds: ids(20).optional(),
        excludeProviderIds: ids(200).optional(),
      })
      .optional(),
    search: z
      .strictObject({
        from: z
          .string()
          .regex(OFFSET_DATE_TIME, 'An ISO 8601 date-time with an offset')
          .refine(isStorableInstant, 'Not a valid date-time')
          .optional()
          .openapi({
            description: 'Start of the search window (default: now)',
          }),
        days: z.number().int().min(1).max(MAX_MATCH_WINDOW_DAYS).default(14),
        durationMinutes: z.number().int().min(15).max(MAX_DURATION_MINUTES).default(60),
        slotsPerProvider: z.number().int().min(1).max(10).default(3),
      })
      .optional(),
    limit: z.number().int().min(1).max(MAX_MATCH_RESULTS).default(10),
  })
  .openapi('TherapistMatchRequest')

export type MatchRequest = z.infer<typeof MatchRequestSchema>
