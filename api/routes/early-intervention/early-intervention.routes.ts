/** @module Route table of a child's early-intervention plan: the deadlines the check-in workflow keeps, its notices, and the 45-day exception. */
import { z } from '@hono/zod-openapi'
import { COMMON_ERRORS, problemResponses, protectedRoute } from '../../openapi/routes.ts'
import { IdParam, UtcDateTime, pageOf } from '../../openapi/schemas.ts'
import { CareNotification, CareNotificationListQuery } from '../../openapi/care-notification-schema.ts'

const ChildId = IdParam('child')
const TAGS = ['Early intervention']
const DateOnly = z.string().openapi({ format: 'date' })

export const EiDeadline = z
  .object({
    kind: z.enum(['INITIAL_IFSP', 'PART_B_REFERRAL', 'PERIODIC_REVIEW', 'ANNUAL_MEETING', 'TRANSITION_PLAN', 'EXIT']),
    dueDate: DateOnly,
    status: z.enum(['OPEN', 'OVERDUE', 'MET', 'MET_LATE', 'EXCEPTED', 'PASSED']).openapi({
      description:
        'OPEN: not yet due; OVERDUE: due and not met; MET / MET_LATE: held within / after the limit; EXCEPTED: a ' +
        'documented exception covers it; PASSED: the date went by (the record does not say whether it was done)',
    }),
    windowOpensOn: DateOnly.optional().openapi({
      description: 'Transition planning: the window opens 9 months before the third birthday',
    }),
    metOn: DateOnly.optional(),
  })
  .openapi('EarlyInterventionDeadline')

export const TimelineExceptionInput = z
  .strictObject({
    reason: z.enum(['FAMILY_CIRCUMSTANCES', 'CONSENT_PENDING']).openapi({
      description:
        '34 CFR §303.310(b): exceptional family circumstances, or consent not given despite documented repeated attempts',
    }),
    note: z
      .string()
      .trim()
      .min(1)
      .max(2000)
      .openapi({ description: 'Where the record documents it', example: 'Family relocated; see contact log.' }),
  })
  .openapi('TimelineExceptionInput')

export const EarlyInterventionPlan = z
  .object({
    childId: z.string(),
    enrolled: z.boolean().openapi({ description: 'Referred, not exited, not archived' }),
    status: z.enum(['ACTIVE', 'CLOSED', 'NOT_STARTED']).openapi({
      description: 'NOT_STARTED until the check-in workflow first computes the plan (moments after enrolment)',
    }),
    closedReason: z
      .string()
      .nullable()
      .openapi({ description: 'EXITED, ARCHIVED, NOT_ENROLLED or CANCELLED once CLOSED' }),
    deadlines: z.array(EiDeadline),
    nextCheckInDate: DateOnly.nullable().openapi({ description: 'The next monthly family check-in' }),
    computedFor: DateOnly.nullable().openapi({ description: 'The day for which the workflow computed the deadlines' }),
    timelineException: z
      .object({
        reason: z.enum(['FAMILY_CIRCUMSTANCES', 'CONSENT_PENDING']),
        note: z.string(),
        recordedAt: UtcDateTime,
      })
      .nullable(),
    workflowId: z.string().openapi({ description: 'The check-in workflow, for operators (Temporal UI)' }),
    updatedAt: UtcDateTime.nullable(),
  })
  .openapi('EarlyInterventionPlan')

const planResponse = (description: string) => ({
  description,
  content: { 'application/json': { schema: EarlyInterventionPlan } },
})

export const getPlanRoute = protectedRoute('children.read', {
  method: 'get',
  path: '/v1/children/{id}/early-intervention',
  tags: TAGS,
  summary: "The deadlines of a child's early-intervention plan and the next family check-in",
  description:
    'As the early-intervention check-in workflow last computed them from the enrolment dates (IDEA Part C: initial ' +
    'IFSP within 45 days of the referral, periodic review, annual meeting, transition planning, exit at three).',
  request: { params: ChildId },
  responses: { 200: planResponse('The plan'), ...problemResponses(404, ...COMMON_ERRORS) },
})

export const listNotificationsRoute = protectedRoute('children.read', {
  method: 'get',
  path: '/v1/children/{id}/early-intervention/notifications',
  tags: TAGS,
  summary: 'The reminders, missed-deadline notices and family check-ins the workflow recorded for a child',
  request: { params: ChildId, query: CareNotificationListQuery },
  responses: {
    200: {
      description: 'A page of notifications',
      content: { 'application/json': { schema: pageOf(CareNotification, 'CareNotificationPage') } },
    },
    ...problemResponses(400, 404, ...COMMON_ERRORS),
  },
})

export const recordExceptionRoute = protectedRoute('children', {
  method: 'post',
  path: '/v1/children/{id}/early-intervention/timeline-exception',
  tags: TAGS,
  summary: 'Record a documented exception to the 45-day timeline',
  description:
    'Replaces any earlier one. Stops the breach notice of the initial IFSP deadline (its status becomes EXCEPTED). ' +
    '409 `invalid_state_transition` when the child is not enrolled or the meeting was held within 45 days.',
  request: {
    params: ChildId,
    body: { required: true, content: { 'application/json': { schema: TimelineExceptionInput } } },
  },
  responses: {
    200: planResponse('The plan with the exception'),
    ...problemResponses(400, 404, 409, 413, 415, 422, ...COMMON_ERRORS),
  },
})

export const withdrawExceptionRoute = protectedRoute('children', {
  method: 'delete',
  path: '/v1/children/{id}/early-intervention/timeline-exception',
  tags: TAGS,
  summary: 'Withdraw the exception to the 45-day timeline',
  request: { params: ChildId },
  responses: {
    200: planResponse('The plan without an exception'),
    ...problemResponses(404, 409, 422, ...COMMON_ERRORS),
  },
})
