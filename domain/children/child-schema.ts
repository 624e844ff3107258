/**
 * @module What a child record is: identity, the clients linked to the child and how, languages, diagnoses, goals
 * and early-intervention enrolment. One schema validates a create and the outcome of a PATCH.
 */
import { z } from '@hono/zod-openapi'
import { LOCATION_ID_RULE } from '../locations/resolve-location.ts'
import { DisciplineSchema } from '../catalogue/disciplines.ts'
import { CalendarDate, LanguageTag, PersonName } from '../clients/record-fields.ts'
import { EarlyIntervention } from '../early-intervention/ei-enrolment.ts'
import { resourceId } from '../id-schema.ts'

/** What a linked client is to the child. */
export const CHILD_RELATIONSHIPS = [
  'MOTHER',
  'FATHER',
  'PARENT',
  'STEP_PARENT',
  'FOSTER_PARENT',
  'ADOPTIVE_PARENT',
  'GRANDPARENT',
  'LEGAL_GUARDIAN',
  'SIBLING',
  'OTHER_RELATIVE',
  'CASE_WORKER',
  'OTHER',
] as const

export const ChildClientLinkInput = z
  .strictObject({
    clientId: resourceId('client'),
    relationship: z.enum(CHILD_RELATIONSHIPS),
    primaryContact: z
      .boolean()
      .default(false)
      .openapi({ description: 'The first person the centre calls; at most one per child' }),
    legalGuardian: z
      .boolean()
      .default(false)
      .openapi({ description: 'Holds legal authority to consent for the child' }),
    financiallyResponsible: z.boolean().default(false).openapi({ description: "Pays for the child's care" }),
  })
  .openapi('ChildClientLink')

export const DIAGNOSIS_SYSTEMS = ['ICD_10_CM', 'ICD_10', 'ICD_11', 'DSM_5_TR', 'OTHER'] as const

/** An ICD-10 code: a letter, two characters, then optionally a dot and up to four more (F80.1, R62.50). */
const ICD_10_CODE = /^[A-TV-Z][0-9][0-9A-Z](\.[0-9A-Z]{1,4})?$/

export const Diagnosis = z
  .strictObject({
    code: z.string().trim().min(1).max(20).openapi({ example: 'F80.1' }),
    system: z.enum(DIAGNOSIS_SYSTEMS).default('ICD_10_CM'),
    description: z.string().trim().min(1).max(500).optional().openapi({ example: 'Expressive language disorder' }),
    diagnosedOn: CalendarDate.optional(),
  })
  .superRefine((d, ctx) => {
    if ((d.system === 'ICD_10' || d.system === 'ICD_10_CM') && !ICD_10_CODE.test(d.code)) {
      ctx.addIssue({
        code: 'custom',
        path: ['code'],
        message: 'Not an ICD-10 code, e.g. F80.1.',
        params: { code: 'invalid_code' },
      })
    }
  })
  .openapi('Diagnosis')

export const GOAL_STATUSES = ['ACTIVE', 'MET', 'ON_HOLD', 'DISCONTINUED'] as const

export const GoalInput = z
  .strictObject({
    id: z.string().max(64).optional().openapi({
      description: 'Leave out for a new goal; keep the id of an existing goal so notes that name it stay linked',
    }),
    description: z
      .string()
      .trim()
      .min(1)
      .max(2000)
      .openapi({ example: 'Produces /s/ in initial position with 80% accuracy' }),
    discipline: DisciplineSchema.optional(),
    status: z.enum(GOAL_STATUSES).default('ACTIVE'),
    targetDate: CalendarDate.optional(),
  })
  .openapi('GoalInput')

/** Refuses a second item with the same key; items without a key (a new goal has no id yet) are never duplicates. */
const unique =
  <T>(key: (item: T) => string | undefined, message: string) =>
  (items: T[], ctx: z.RefinementCtx) => {
    const seen = new Set<string>()
    items.forEach((item, index) => {
      const k = key(item)
      if (k === undefined) return
      if (seen.has(k)) ctx.addIssue({ code: 'custom', path: [index], message, params: { code: 'duplicate' } })
      seen.add(k)
    })
  }

/** The writable fields of a child. */
export const ChildFields = z
  .strictObject({
    firstName: PersonName.openapi({ example: 'Maya' }),
    lastName: PersonName.openapi({ example: 'Okafor' }),
    dateOfBirth: CalendarDate.openapi({ example: '2023-04-18' }),
    locationId: resourceId('location').optional().openapi({ description: LOCATION_ID_RULE }),
    languages: z
      .array(LanguageTag)
      .max(10)
      .default([])
      .superRefine(unique((tag: string) => tag, 'Each language once.'))
      .openapi({ example: ['en', 'es-MX'] }),
    clients: z
      .array(ChildClientLinkInput)
      .max(20)
      .default([])
      .superRefine(unique((link) => link.clientId, 'Each client once.'))
      .superRefine((links, ctx) => {
        if (links.filter((l) => l.primaryContact).length > 1) {
          ctx.addIssue({
            code: 'custom',
            message: 'At most one primary contact.',
            params: { code: 'several_primary_contacts' },
          })
        }
      })
      .openapi({ description: 'The clients linked to the child and how; replaced whole by a PATCH' }),
    diagnoses: z
      .array(Diagnosis)
      .max(50)
      .default([])
      .superRefine(unique((d) => `${d.system}:${d.code}`, 'Each diagnosis once.')),
    goals: z
      .array(GoalInput)
      .max(100)
      .default([])
      .superRefine(unique((g) => g.id, 'Each goal id once.')),
    earlyIntervention: EarlyIntervention.optional(),
  })
  .superRefine((child, ctx) => {
    const ei = child.earlyIntervention
    if (ei && ei.referralDate < child.dateOfBirth) {
      ctx.addIssue({
        code: 'custom',
        path: ['earlyIntervention', 'referralDate'],
        message: 'The referral cannot precede the date of birth.',
        params: { code: 'before_birth' },
      })
    }
  })

export type ChildFieldsInput = z.output<typeof ChildFields>
export type GoalInputValue = z.output<typeof GoalInput>
