/**
 * @module The event catalogue (docs/webhooks.md, "Events"): every event type the platform emits and the `data` payload each one
 * carries. Payloads carry ids and the fields listed there, never health details (minimum necessary, docs/conventions.md);
 * receivers fetch more through the API. These schemas are the single source of the OpenAPI `webhooks` section and
 * are checked when an event is recorded, so an emitter cannot drift from the documentation.
 */
import { z } from '@hono/zod-openapi'

const id = (description: string) => z.string().describe(description)
const instant = (description: string) => z.string().datetime({ offset: true }).describe(description)
const calendarDate = (description: string) =>
  z
    .string()
    .regex(/^\d{4}-\d{2}-\d{2}$/)
    .describe(description)

/** `data` of each event type, keyed by type. Adding a field is backwards compatible; removing one is not. */
export const EVENT_DATA_SCHEMAS = {
  /** A published contract, kept exactly (docs/webhooks.md): emitted when an appointment is booked (POST /v1/appointments, each occurrence of a series). */
  'booking.created': z.object({
    bookingId: id('The appointment id.'),
    childId: id('The child the booking is for.'),
    service: z.string().describe('The service kind, e.g. THERAPY_SESSION or EARLY_INTERVENTION.'),
    amount: z.number().int().describe('Price of the service in minor units of `currency`.'),
    currency: z.string().length(3).describe('ISO 4217 currency code.'),
  }),
  /** An appointment was cancelled (by the centre or on the family's behalf). */
  'booking.cancelled': z.object({
    bookingId: id('The appointment id.'),
    childId: id('The child the booking was for.'),
    cancelledAt: instant('When it was cancelled (UTC).'),
    reason: z.string().describe('Reason code, e.g. FAMILY_REQUEST, PROVIDER_UNAVAILABLE, ILLNESS, OTHER.'),
    lateCancellation: z.boolean().describe("Whether it fell inside the location's late-cancellation window."),
  }),
  /** An appointment moved to another time (or provider). */
  'appointment.rescheduled': z.object({
    appointmentId: id('The appointment id.'),
    childId: id('The child.'),
    providerId: id('The provider after the change.'),
    previousStartsAt: instant('Start before the change, with the location offset.'),
    startsAt: instant('New start, with the location offset.'),
  }),
  /** An appointment was completed (the session took place). */
  'appointment.completed': z.object({
    appointmentId: id('The appointment id.'),
    childId: id('The child.'),
    providerId: id('The provider.'),
    sessionId: id('The session the appointment became.').nullable(),
    completedAt: instant('When it was marked completed (UTC).'),
  }),
  /** A payment against an order succeeded. */
  'payment.succeeded': z.object({
    paymentId: id('The payment id.'),
    orderId: id('The order it pays.').nullable(),
    amount: z.number().int().describe('Amount in minor units of `currency`.'),
    currency: z.string().length(3).describe('ISO 4217 currency code.'),
  }),
  /** An assessment reached its due date without being completed (assessment reminder workflow). */
  'assessment.due': z.object({
    assessmentId: id('The assessment id.'),
    childId: id('The child.'),
    providerId: id('The provider responsible.').nullable(),
    instrument: z.string().describe('The instrument, e.g. PLS-5.'),
    dueDate: calendarDate('The due date (YYYY-MM-DD).'),
  }),
  /** An assessment was completed and its results recorded. */
  'assessment.completed': z.object({
    assessmentId: id('The assessment id.'),
    childId: id('The child.'),
    providerId: id('The provider who administered it.').nullable(),
    instrument: z.string().describe('The instrument, e.g. PLS-5.'),
    completedAt: instant('When it was completed (UTC).'),
  }),
  /** A provider finished onboarding and was approved: from now on bookable. */
  'provider.approved': z.object({
    providerId: id('The provider id.'),
    approvedAt: instant('When the approval was given (UTC).'),
  }),
  /** A child was registered with the centre. */
  'child.registered': z.object({
    childId: id('The child id.'),
    locationId: id('The location the child was registered at.').nullable(),
  }),
  /**
   * A SOAP note became part of the session's record: a note was signed, or an addendum was added to a signed note.
   * Drafts are work in progress and emit nothing.
   */
  'session.note_added': z.object({
    sessionId: id('The session.'),
    noteId: id('The note (or addendum) id.'),
    kind: z.enum(['NOTE', 'ADDENDUM']).describe('A signed note, or an addendum to one.'),
    appointmentId: id('The appointment the session belongs to.').nullable(),
  }),
  /**
   * Not in the spec (a platform extra, docs/webhooks.md): an appointment passed its end without a check-in and was
   * marked NO_SHOW, by the appointment workflow at the no-show deadline or through the API.
   */
  'appointment.no_show': z.object({
    appointmentId: id('The appointment id.'),
    childId: id('The child.'),
    providerId: id('The provider.'),
    noShowAt: instant('When it was marked a no-show (UTC).'),
    markedBy: z
      .enum(['WORKFLOW', 'API'])
      .describe("WORKFLOW: the booking workflow's deadline passed; API: a user marked it."),
  }),
  /**
   * Not in the spec (a platform extra, docs/webhooks.md): a reminder before an appointment is due to the family, at
   * one of its location's `reminderOffsetsMinutes`. The platform sends no e-mail or SMS itself: an integrator may.
   */
  'appointment.reminder_due': z.object({
    appointmentId: id('The appointment id.'),
    childId: id('The child.'),
    providerId: id('The provider.'),
    startsAt: instant('The start the reminder is about, with the location offset.'),
    offsetMinutes: z.number().int().describe('How many minutes before the start this reminder is due (the policy).'),
  }),
  /**
   * Not in the spec (a platform extra, docs/payments.md): a payer disputed (charged back) a succeeded online payment,
   * or the processor decided such a dispute. Emitted once per change the platform records of each dispute (a payment
   * can be disputed more than once: each dispute is its own).
   */
  'payment.disputed': z.object({
    paymentId: id('The disputed payment.'),
    disputeId: id("The dispute (one of the payment's `disputes`)."),
    orderId: id('The order it paid.').nullable(),
    status: z
      .enum(['OPEN', 'WON', 'LOST', 'CLOSED'])
      .describe(
        'OPEN: the card issuer opened the dispute; WON: decided for the centre (or its funds reinstated); LOST: for ' +
          'the payer (charged back); CLOSED: an inquiry closed, or the charge refunded, with nothing charged back.'
      ),
    amount: z.number().int().describe('The disputed amount, in minor units of `currency`.'),
    amountLost: z.number().int().describe('What the dispute took back (LOST only; else 0), in minor units.'),
    fee: z
      .number()
      .int()
      .describe("The processor's dispute fee, in minor units: the centre's cost, never a provider's."),
    currency: z.string().length(3).describe('ISO 4217 currency code.'),
  }),
  /**
   * Not in the spec (a platform extra, docs/payments.md, "Reconciliation"): the platform's books and the payment
   * processor's disagree about one payment, refund, dispute or transfer. Emitted once per finding (a difference found
   * again by a later run is the same finding); it changes no money by itself.
   */
  'reconciliation.mismatch': z.object({
    findingId: id('The finding (GET /v1/reconciliation/findings).'),
    kind: z
      .enum([
        'MISSING_AT_PROCESSOR',
        'MISSING_IN_PLATFORM',
        'AMOUNT_MISMATCH',
        'CURRENCY_MISMATCH',
        'STATUS_MISMATCH',
        'UNAPPLIED_PAYMENT',
        'EVENT_MISMATCH',
        'PAYOUT_FAILED',
      ])
      .describe('What differs (PAYOUT_FAILED: a payout transfer the processor refused, waiting for a retry).'),
    objectType: z.enum(['PAYMENT', 'REFUND', 'DISPUTE', 'TRANSFER']).describe('What kind of record it is about.'),
    objectId: id('Our record, when we have one.').nullable(),
    processorReference: id("The processor's id, when it has one.").nullable(),
  }),
  /** Sent only by the "send test event" operation of a webhook endpoint. */
  'webhook.test': z.object({
    endpointId: id('The endpoint the test was sent to.'),
    message: z.string(),
  }),
  /**
   * Not in the spec (a platform extra, docs/webhooks.md): a webhook endpoint was disabled by the platform, because
   * its receiver answered 410 Gone or because every delivery to it failed for 5 days. Delivered to the tenant's
   * other endpoints subscribed to it; the disabled endpoint shows the same reason in `disabledReason`.
   */
  'webhook_endpoint.disabled': z.object({
    endpointId: id('The endpoint that stopped receiving deliveries.'),
    reason: z.enum(['GONE', 'FAILING']).describe('GONE: the receiver answered 410; FAILING: 5 days of failures.'),
    disabledAt: instant('When it was disabled (UTC).'),
  }),
} as const

export type EventType = keyof typeof EVENT_DATA_SCHEMAS
export type EventData<T extends EventType> = z.infer<(typeof EVENT_DATA_SCHEMAS)[T]>

/** The ten subscribable event types of the spec (the test event is sent only on request). */
export const SUBSCRIBABLE_EVENT_TYPES = [
  'booking.created',
  'booking.cancelled',
  'appointment.completed',
  'payment.succeeded',
  'assessment.due',
  'provider.approved',
  'child.registered',
  'appointment.rescheduled',
  'session.note_added',
  'assessment.completed',
] as const satisfies readonly EventType[]

export type SubscribableEventType = (typeof SUBSCRIBABLE_EVENT_TYPES)[number]

/** Event types the platform adds beyond the spec's ten (documented as extras); subscribable like them. */
export const PLATFORM_EVENT_TYPES = [
  'webhook_endpoint.disabled',
  'appointment.no_show',
  'appointment.reminder_due',
  'payment.disputed',
  'reconciliation.mismatch',
] as const satisfies readonly EventType[]

/** Every type an endpoint may subscribe to, and what `["*"]` stands for. */
export const ALL_SUBSCRIBABLE_EVENT_TYPES: readonly EventType[] = [...SUBSCRIBABLE_EVENT_TYPES, ...PLATFORM_EVENT_TYPES]
