/** @module Route table of /v1/leads: families' enquiries, qualified, matched, offered slots, followed up and closed. */
import { z } from '@hono/zod-openapi'
import { DisciplineSchema } from '../../../domain/catalogue/disciplines.ts'
import { QUALIFICATION_RULES } from '../../../domain/leads/lead-qualification.ts'
import {
  BookLeadSchema,
  CloseLeadSchema,
  CreateLeadSchema,
  OfferLeadSchema,
  PatchLeadSchema,
} from '../../../domain/leads/lead-request.ts'
import { LEAD_CLOSE_REASONS, LEAD_STATUSES } from '../../../common/leads/lead-state.ts'
import { LEAD_SORTS } from '../../../domain/leads/lead-store.ts'
import { listQuerySchema } from '../../../domain/listing.ts'
import { COMMON_ERRORS, problemResponses, protectedRoute } from '../../openapi/routes.ts'
import { IdParam, UtcDateTime, pageOf } from '../../openapi/schemas.ts'
import { CareNotification, CareNotificationListQuery } from '../../openapi/care-notification-schema.ts'
import { ProviderMatch } from '../therapists/therapists.routes.ts'
import { resourceId } from '../../../domain/id-schema.ts'

const TAGS = ['Leads']
const LeadId = IdParam('lead')
const LeadStatusSchema = z.enum(LEAD_STATUSES).openapi('LeadStatus')

const QualificationCheck = z
  .object({
    rule: z.enum(QUALIFICATION_RULES),
    passed: z.boolean(),
    providers: z.number().int().openapi({ description: 'Bookable providers left after this rule' }),
    explanation: z.string(),
  })
  .openapi('LeadQualificationCheck')

const OfferedSlot = z
  .object({
    providerId: z.string(),
    discipline: DisciplineSchema,
    startsAt: z.string().openapi({ format: 'date-time', example: '2026-12-01T15:00:00-06:00' }),
    endsAt: z.string().openapi({ format: 'date-time' }),
    timeZone: z.string(),
  })
  .openapi('LeadOfferedSlot')

export const Lead = z
  .object({
    id: resourceId('lead'),
    status: LeadStatusSchema,
    clientId: z.string().nullable(),
    childId: z.string().nullable(),
    contact: z.object({ name: z.string().nullable(), email: z.string().nullable(), phone: z.string().nullable() }),
    needs: z.object({
      disciplines: z.array(z.string()),
      concerns: z.array(z.string()),
      languages: z.array(z.string()),
      ageMonths: z.number().int().nullable(),
      dateOfBirth: z.string().nullable().openapi({ format: 'date' }),
      payer: z.string(),
      settingMode: z.enum(['IN_PERSON', 'TELEHEALTH', 'ANY']),
      locationId: z.string().nullable(),
      postalArea: z.string().nullable(),
      preferredTimes: z
        .unknown()
        .nullable()
        .openapi({ description: '{ timeZone, windows: [{ weekdays, start, end }] }' }),
    }),
    qualification: z
      .object({
        outcome: z.enum(['QUALIFIED', 'DISQUALIFIED']),
        checks: z.array(QualificationCheck),
        offeredDisciplines: z.array(z.string()),
        ageGroup: z.string(),
        decidedAt: UtcDateTime,
      })
      .nullable()
      .openapi({
        description:
          'The rules and why each passed or failed; null until the workflow qualifies the lead (moments after it is taken)',
      }),
    servedLocationId: z.string().nullable().openapi({ description: 'The location the place resolved to' }),
    matches: z
      .array(ProviderMatch.extend({ discipline: z.string() }))
      .openapi({ description: 'Top providers per discipline with their next slots' }),
    matchedAt: UtcDateTime.nullable(),
    offeredSlots: z.array(OfferedSlot),
    offeredAt: UtcDateTime.nullable(),
    followUps: z.object({
      sent: z.number().int(),
      max: z.number().int(),
      nextAt: UtcDateTime.nullable().openapi({
        description: 'When the family is next followed up, while the offer is unanswered',
      }),
    }),
    respondBy: UtcDateTime.nullable().openapi({ description: 'When an unanswered offer closes LOST (NO_RESPONSE)' }),
    appointmentId: z.string().nullable(),
    closedReason: z.enum(LEAD_CLOSE_REASONS).nullable(),
    closedNote: z.string().nullable(),
    closedAt: UtcDateTime.nullable(),
    workflowId: z.string().openapi({ description: 'The lead qualification workflow, for operators (Temporal UI)' }),
    createdAt: UtcDateTime,
    updatedAt: UtcDateTime,
  })
  .openapi('Lead')

const leadResponse = (description: string) => ({ description, content: { 'application/json': { schema: Lead } } })
const body = <T extends z.ZodType>(schema: T) => ({ required: true, content: { 'application/json': { schema } } })

const ListLeadsQuery = listQuerySchema(LEAD_SORTS, '-createdAt').extend({
  status: LeadStatusSchema.optional().openapi({ param: { name: 'status', in: 'query' } }),
  locationId: z
    .string()
    .max(64)
    .optional()
    .openapi({ param: { name: 'locationId', in: 'query' }, description: 'Leads served by this location' }),
})

export const createLeadRoute = protectedRoute('leads', {
  method: 'post',
  path: '/v1/leads',
  tags: TAGS,
  summary: "Take a family's enquiry as a lead",
  description:
    'The lead starts NEW; its workflow qualifies it by rules (needs offered, age served, location served, payer ' +
    'accepted) and matches it to providers moments later. Contact details and needs are kept in the database only.',
  request: { body: body(CreateLeadSchema) },
  responses: { 201: leadResponse('The lead'), ...problemResponses(400, 409, 413, 415, 422, ...COMMON_ERRORS) },
})

export const listLeadsRoute = protectedRoute('leads.read', {
  method: 'get',
  path: '/v1/leads',
  tags: TAGS,
  summary: 'List leads',
  request: { query: ListLeadsQuery },
  responses: {
    200: { description: 'A page of leads', content: { 'application/json': { schema: pageOf(Lead, 'LeadPage') } } },
    ...problemResponses(400, ...COMMON_ERRORS),
  },
})

export const getLeadRoute = protectedRoute('leads.read', {
  method: 'get',
  path: '/v1/leads/{id}',
  tags: TAGS,
  summary: 'A lead: status, qualification reasons, matches, offered slots and the next follow-up',
  request: { params: LeadId },
  responses: { 200: leadResponse('The lead'), ...problemResponses(404, ...COMMON_ERRORS) },
})

export const patchLeadRoute = protectedRoute('leads', {
  method: 'patch',
  path: '/v1/leads/{id}',
  tags: TAGS,
  summary: "Update a lead's family and contact (JSON merge patch)",
  description:
    'Writable: `clientId`, `childId`, `contact`. The needs are what the lead was qualified on: a family whose needs changed sends a new enquiry. 409 on a closed lead.',
  request: {
    params: LeadId,
    body: {
      required: true,
      content: {
        'application/merge-patch+json': { schema: PatchLeadSchema },
        'application/json': { schema: PatchLeadSchema },
      },
    },
  },
  responses: { 200: leadResponse('The lead'), ...problemResponses(400, 404, 409, 413, 415, 422, ...COMMON_ERRORS) },
})

export const offerLeadRoute = protectedRoute('leads', {
  method: 'post',
  path: '/v1/leads/{id}/offer',
  tags: TAGS,
  summary: 'Offer the family slots chosen from the matches',
  description:
    'MATCHED or OFFERED leads (a new offer replaces the last and restarts the follow-ups). The workflow follows the ' +
    'family up while the offer is unanswered and closes it LOST (NO_RESPONSE) at `respondBy`.',
  request: { params: LeadId, body: body(OfferLeadSchema) },
  responses: {
    200: leadResponse('The offered lead'),
    ...problemResponses(400, 404, 409, 413, 415, 422, 503, ...COMMON_ERRORS),
  },
})

export const bookLeadRoute = protectedRoute('leads', {
  method: 'post',
  path: '/v1/leads/{id}/book',
  tags: TAGS,
  summary: 'Book an offered slot and close the lead BOOKED',
  description:
    'Books through the normal booking path (as `POST /v1/appointments`: availability rules, the booking workflow, ' +
    '`booking.created`) and links the appointment. 409 `slot_unavailable` when the slot was taken; 409 ' +
    '`invalid_state_transition` when the lead is not OFFERED (also when its response window closed a moment ago).',
  request: { params: LeadId, body: body(BookLeadSchema) },
  responses: {
    200: leadResponse('The booked lead'),
    ...problemResponses(400, 404, 409, 413, 415, 422, 503, ...COMMON_ERRORS),
  },
})

export const closeLeadRoute = protectedRoute('leads', {
  method: 'post',
  path: '/v1/leads/{id}/close',
  tags: TAGS,
  summary: 'Close an open lead LOST, with a reason',
  request: { params: LeadId, body: body(CloseLeadSchema) },
  responses: {
    200: leadResponse('The closed lead'),
    ...problemResponses(400, 404, 409, 413, 415, 422, 503, ...COMMON_ERRORS),
  },
})

export const listLeadNotificationsRoute = protectedRoute('leads.read', {
  method: 'get',
  path: '/v1/leads/{id}/notifications',
  tags: TAGS,
  summary: "The follow-ups the workflow raised for a lead's unanswered offer (contact the family)",
  description:
    'Kind `LEAD_FOLLOW_UP`, details `{ leadId, followUp, offeredSlots, respondBy }`; OPEN until the lead is booked (RESOLVED) or closed or re-offered (CANCELLED).',
  request: { params: LeadId, query: CareNotificationListQuery },
  responses: {
    200: {
      description: 'A page of notifications',
      content: { 'application/json': { schema: pageOf(CareNotification, 'CareNotificationPage') } },
    },
    ...problemResponses(400, 404, ...COMMON_ERRORS),
  },
})
