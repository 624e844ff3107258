/** @module Route table of a provider's onboarding: start it, follow it, drive its steps, approve, reject or cancel it. */
import { z } from '@hono/zod-openapi'
import {
  BACKGROUND_CHECK_OUTCOMES,
  DOCUMENT_TYPES,
  ONBOARDING_STEPS,
} from '../../../common/provider-onboarding/onboarding-rules.ts'
import { COMMON_ERRORS, problemResponses, protectedRoute } from '../../openapi/routes.ts'
import { IdParam, UtcDateTime, pageOf } from '../../openapi/schemas.ts'
import { CareNotification, CareNotificationListQuery } from '../../openapi/care-notification-schema.ts'

const ProviderId = IdParam('provider')
const TAGS = ['Provider onboarding']

export const OnboardingDocument = z
  .strictObject({
    type: z.enum(DOCUMENT_TYPES),
    reference: z.string().trim().min(1).max(500).openapi({
      description: 'Where the document is kept (a document-store id or URL); its content is never sent here',
      example: 'docstore://credentials/lic-104233.pdf',
    }),
  })
  .openapi('OnboardingDocument')

export const DocumentsInput = z
  .strictObject({ documents: z.array(OnboardingDocument).min(1).max(20) })
  .openapi('OnboardingDocumentsInput', { description: 'LICENSE and IDENTITY documents are required' })

export const BackgroundCheckInput = z
  .strictObject({
    outcome: z
      .enum(BACKGROUND_CHECK_OUTCOMES)
      .openapi({ description: 'NOT_CLEAR still goes to the admin, who decides' }),
    reference: z
      .string()
      .trim()
      .min(1)
      .max(200)
      .openapi({ description: "The screening vendor's report id", example: 'chk_55812' }),
  })
  .openapi('BackgroundCheckInput')

export const RejectInput = z
  .strictObject({ reason: z.string().trim().min(1).max(2000) })
  .openapi('OnboardingRejectInput')

export const ProviderOnboarding = z
  .object({
    providerId: z.string(),
    status: z.enum(['IN_PROGRESS', 'APPROVED', 'REJECTED', 'TIMED_OUT', 'CANCELLED']),
    step: z.enum(ONBOARDING_STEPS).openapi({ description: 'The current step (the last one reached once closed)' }),
    attempt: z.number().int(),
    providerStatus: z.enum(['INVITED', 'IN_REVIEW', 'APPROVED', 'SUSPENDED', 'OFFBOARDED']).openapi({
      description: "The provider's own onboarding status; APPROVED providers are bookable",
    }),
    stepStartedAt: UtcDateTime,
    stepDeadlineAt: UtcDateTime.nullable().openapi({ description: 'When the current step times out the onboarding' }),
    nextReminderAt: UtcDateTime.nullable(),
    profileConfirmedAt: UtcDateTime.nullable(),
    documents: z.array(OnboardingDocument),
    documentsSubmittedAt: UtcDateTime.nullable(),
    licenceVerification: z
      .object({
        outcome: z.enum(['VERIFIED', 'FAILED']),
        reasons: z.array(z.enum(['NO_LICENSE', 'LICENSE_EXPIRED', 'LICENSE_EXPIRES_SOON', 'NO_LICENSE_DOCUMENT'])),
        licence: z
          .object({
            number: z.string(),
            issuingCountry: z.string(),
            issuingRegion: z.string().nullable(),
            expiresOn: z.string().nullable(),
          })
          .nullable(),
        checkedAt: UtcDateTime,
      })
      .nullable(),
    licenceVerifiedAt: UtcDateTime.nullable(),
    backgroundCheck: z.object({ outcome: z.enum(BACKGROUND_CHECK_OUTCOMES), reference: z.string() }).nullable(),
    backgroundCheckCompletedAt: UtcDateTime.nullable(),
    decisionNote: z.string().nullable(),
    startedAt: UtcDateTime,
    closedAt: UtcDateTime.nullable(),
    workflowId: z.string().openapi({ description: "This attempt's workflow, for operators (Temporal UI)" }),
  })
  .openapi('ProviderOnboarding')

const onboardingResponse = (description: string) => ({
  description,
  content: { 'application/json': { schema: ProviderOnboarding } },
})
const STEP_ERRORS = problemResponses(400, 404, 409, 413, 415, 422, 503, ...COMMON_ERRORS)
const body = <T extends z.ZodTypeAny>(schema: T) => ({ required: true, content: { 'application/json': { schema } } })

export const startOnboardingRoute = protectedRoute('providers', {
  method: 'post',
  path: '/v1/providers/{id}/onboarding',
  tags: TAGS,
  summary: 'Start onboarding a provider',
  description:
    'For an INVITED or IN_REVIEW provider; starts the onboarding workflow. 409 `invalid_state_transition` for an ' +
    'approved, suspended or offboarded provider or while an onboarding is in progress. A closed onboarding (timed ' +
    'out, rejected, cancelled) can be followed by a new attempt.',
  request: { params: ProviderId },
  responses: {
    201: onboardingResponse('The onboarding, at its first step'),
    ...problemResponses(404, 409, 422, ...COMMON_ERRORS),
  },
})

export const getOnboardingRoute = protectedRoute('providers.read', {
  method: 'get',
  path: '/v1/providers/{id}/onboarding',
  tags: TAGS,
  summary: "A provider's onboarding: current step, what each step recorded, the step's deadline and next reminder",
  request: { params: ProviderId },
  responses: { 200: onboardingResponse('The onboarding'), ...problemResponses(404, ...COMMON_ERRORS) },
})

const stepConfig = (path: string, summary: string, description: string) => ({
  method: 'post' as const,
  path: `/v1/providers/{id}/onboarding/${path}`,
  tags: TAGS,
  summary,
  description: `${description} Answered by the onboarding workflow (a Temporal update): 409 \`invalid_state_transition\` when the onboarding is not at this step or not in progress; 503 when the workflow service cannot answer (retry with the same Idempotency-Key).`,
  responses: { 200: onboardingResponse('The onboarding after the step'), ...STEP_ERRORS },
})

/** A step without a request body. */
const stepRoute = (path: string, summary: string, description: string) =>
  protectedRoute('providers', { ...stepConfig(path, summary, description), request: { params: ProviderId } })

/** A step whose request body is `schema`. */
const stepRouteWith = <T extends z.ZodTypeAny>(path: string, summary: string, description: string, schema: T) =>
  protectedRoute('providers', {
    ...stepConfig(path, summary, description),
    request: { params: ProviderId, body: body(schema) },
  })

export const confirmProfileRoute = stepRoute(
  'profile',
  "Confirm the provider's profile",
  "PROFILE → DOCUMENTS. 400 `validation_error` (`profile_incomplete` per field) until the provider's record has an email, disciplines, age groups and languages."
)
export const submitDocumentsRoute = stepRouteWith(
  'documents',
  'Submit the credential documents',
  'DOCUMENTS → LICENCE_VERIFICATION, which runs at once: a LICENSE credential valid 30 more days and a LICENSE document move on to BACKGROUND_CHECK.',
  DocumentsInput
)
export const retryLicenceRoute = stepRoute(
  'licence-verification',
  'Verify the licence again',
  "After a failed verification, once the provider's credentials were corrected (PATCH /v1/providers/{id})."
)
export const backgroundCheckRoute = stepRouteWith(
  'background-check',
  'Record the background check',
  'BACKGROUND_CHECK → ADMIN_APPROVAL; the provider becomes IN_REVIEW.',
  BackgroundCheckInput
)
export const approveOnboardingRoute = stepRoute(
  'approve',
  "An admin's approval",
  'ADMIN_APPROVAL → APPROVED: the provider is approved (`provider.approved`) and bookable.'
)
export const rejectOnboardingRoute = stepRouteWith(
  'reject',
  "An admin's rejection",
  'At any step; the provider stays unbookable.',
  RejectInput
)

export const cancelOnboardingRoute = protectedRoute('providers', {
  method: 'delete',
  path: '/v1/providers/{id}/onboarding',
  tags: TAGS,
  summary: 'Cancel the onboarding in progress',
  description:
    'Cancels the workflow, which records CANCELLED. 409 `invalid_state_transition` when none is in progress.',
  request: { params: ProviderId },
  responses: {
    200: onboardingResponse('The cancelled onboarding'),
    ...problemResponses(404, 409, 422, 503, ...COMMON_ERRORS),
  },
})

export const listOnboardingNotificationsRoute = protectedRoute('providers.read', {
  method: 'get',
  path: '/v1/providers/{id}/onboarding/notifications',
  tags: TAGS,
  summary: 'The reminders and timeout notices of the onboarding',
  request: { params: ProviderId, query: CareNotificationListQuery },
  responses: {
    200: {
      description: 'A page of notifications',
      content: { 'application/json': { schema: pageOf(CareNotification, 'OnboardingNotificationPage') } },
    },
    ...problemResponses(400, 404, ...COMMON_ERRORS),
  },
})
