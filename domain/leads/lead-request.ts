/**
 * @module The bodies the leads API takes: a family's enquiry, the merge patch of its writable fields, an offer, a
 * booking and a close. The needs use the shared vocabularies (disciplines, age bands, focus tags and ICD-10 codes as
 * matching takes them, BCP 47 languages, payer codes as providers' matching profiles list them).
 */
import { z } from '@hono/zod-openapi'
import { DisciplineSchema } from '../catalogue/disciplines.ts'
import { CalendarDate, LanguageTag, PersonName, PhoneNumber } from '../clients/record-fields.ts'
import { Condition, PreferredWindowSchema } from '../therapists/match-request.ts'
import { isStorableInstant, OFFSET_DATE_TIME } from '../time.ts'
import { PERSON_CLOSE_REASONS } from '../../common/leads/lead-state.ts'
import { resourceId } from '../id-schema.ts'

/** A provider of a slot: one not among the lead's matches is `not_matched` (offer) or `not_offered` (book). */
const SlotProviderId = z.string().min(1).max(64)

/** A concern as matching takes it: a focus tag (STUTTERING, AAC) or an ICD-10 code (F80.1), upper case. */
const Concern = Condition

export const LeadContactSchema = z
  .strictObject({
    name: PersonName.optional(),
    email: z.email().max(254).toLowerCase().optional(),
    phone: PhoneNumber.optional(),
  })
  .openapi('LeadContact', {
    description: 'How to reach the family when they are not yet a client: an email or a phone at least.',
  })

export const PreferredTimesSchema = z
  .strictObject({
    timeZone: z.string().min(1).max(64).openapi({ example: 'America/Chicago' }),
    windows: z.array(PreferredWindowSchema).min(1).max(21),
  })
  .openapi('LeadPreferredTimes')

/** The fields a PATCH may change: who the family is and how to reach them. The needs are what was qualified. */
export const LeadWritableSchema = z.strictObject({
  clientId: resourceId('client').optional().openapi({ description: 'The family as an existing client of the centre' }),
  childId: resourceId('child')
    .optional()
    .openapi({ description: "The child's record, once registered; needed to book" }),
  contact: LeadContactSchema.optional(),
})

export const CreateLeadSchema = LeadWritableSchema.extend({
  locationId: resourceId('location').optional().openapi({ description: 'The location the family asks about' }),
  postalArea: z.string().trim().min(2).max(12).optional().openapi({
    description:
      "Where the family lives: a postal code or its leading part, matched against the locations' postal codes",
    example: '787',
  }),
  ageMonths: z.number().int().min(0).max(1200).optional().openapi({ description: "The child's age in whole months" }),
  dateOfBirth: CalendarDate.optional().openapi({
    description: "The child's date of birth (kept in the database only)",
  }),
  disciplines: z.array(DisciplineSchema).min(1).max(4),
  concerns: z
    .array(Concern)
    .max(20)
    .optional()
    .openapi({ description: 'Focus tags or ICD-10-CM codes', example: ['STUTTERING'] }),
  languages: z.array(LanguageTag).max(10).optional(),
  payer: z
    .string()
    .trim()
    .min(1)
    .max(64)
    .transform((s) => s.toUpperCase())
    .openapi({ description: 'A payer code, e.g. MEDICAID or SELF_PAY', example: 'MEDICAID' }),
  settingMode: z.enum(['IN_PERSON', 'TELEHEALTH', 'ANY']).default('ANY'),
  preferredTimes: PreferredTimesSchema.optional(),
})
  .refine((b) => b.locationId !== undefined || b.postalArea !== undefined, {
    message: 'Give locationId or postalArea.',
    path: ['postalArea'],
    params: { code: 'required' },
  })
  .refine((b) => b.ageMonths !== undefined || b.dateOfBirth !== undefined || b.childId !== undefined, {
    message: "Give the child's ageMonths or dateOfBirth (or a childId).",
    path: ['ageMonths'],
    params: { code: 'required' },
  })
  .refine((b) => b.clientId !== undefined || b.contact?.email !== undefined || b.contact?.phone !== undefined, {
    message: 'Give a clientId or a contact email or phone.',
    path: ['contact'],
    params: { code: 'required' },
  })
  .openapi('CreateLead')

export type CreateLead = z.infer<typeof CreateLeadSchema>

export const PatchLeadSchema = z
  .strictObject({
    clientId: resourceId('client').nullable().optional(),
    childId: resourceId('child').nullable().optional(),
    contact: z
      .strictObject({
        name: PersonName.nullable().optional(),
        email: z.email().max(254).toLowerCase().nullable().optional(),
        phone: PhoneNumber.nullable().optional(),
      })
      .nullable()
      .optional(),
  })
  .openapi('PatchLead', { description: 'JSON merge patch (RFC 7396) of the writable fields; null removes a field.' })

export type PatchLead = z.infer<typeof PatchLeadSchema>

const SlotChoice = z.strictObject({
  providerId: SlotProviderId,
  startsAt: z
    .string()
    .regex(OFFSET_DATE_TIME, 'An ISO 8601 date-time with an offset')
    .refine(isStorableInstant, 'Not a valid date-time')
    .openapi({ example: '2026-12-01T15:00:00-06:00' }),
})

export const OfferLeadSchema = z
  .strictObject({
    slots: z.array(SlotChoice).min(1).max(10).openapi({ description: "Slots chosen from the lead's matches" }),
  })
  .openapi('OfferLead')

export const BookLeadSchema = SlotChoice.extend({
  childId: resourceId('child').optional().openapi({ description: "The child's record (default: the lead's childId)" }),
  type: z.enum(['EVALUATION', 'THERAPY_SESSION', 'SCREENING', 'CONSULTATION']).default('EVALUATION'),
}).openapi('BookLead')

export const CloseLeadSchema = z
  .strictObject({
    reason: z.enum(PERSON_CLOSE_REASONS).openapi({
      description: 'Why the lead was lost (NO_MATCH is the workflow’s own)',
    }),
    note: z.string().trim().min(1).max(500).optional(),
  })
  .openapi('CloseLead')
