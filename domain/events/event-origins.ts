/**
 * @module Which operation emits each event type: the table of docs/webhooks.md and the
 * descriptions of the OpenAPI `webhooks` section come from here.
 */
import type { EventType } from './event-catalogue.ts'

export const EVENT_ORIGINS: Record<EventType, string> = {
  'booking.created':
    '`POST /v1/appointments` (one event per appointment), and each occurrence booked by an appointment series.',
  'booking.cancelled': "Cancelling an appointment (by the centre or on the family's behalf).",
  'appointment.rescheduled':
    'Rescheduling an appointment, or a `PATCH` of an appointment that changes its time (or provider).',
  'appointment.completed': 'Completing an appointment (the session took place).',
  'payment.succeeded': 'A payment against an order succeeding.',
  'payment.disputed':
    "The payment processor's dispute events (Stripe `charge.dispute.created` and `charge.dispute.closed`) about a " +
    'succeeded online payment. A platform extra, not in the spec.',
  'reconciliation.mismatch':
    "The daily reconciliation with the payment processor, or a processor event that disagrees with the platform's " +
    'record, finding a difference (once per finding). A platform extra, not in the spec.',
  'assessment.due': 'The assessment reminder workflow, on the due date of an assessment that is not completed by then.',
  'assessment.completed': 'Completing an assessment (its results recorded).',
  'provider.approved': 'Approving a provider at the end of onboarding (from then on bookable).',
  'child.registered': '`POST /v1/children`.',
  'session.note_added':
    'Signing a SOAP note of a session, or adding an addendum to a signed note (drafts emit nothing).',
  'webhook.test': '`POST /v1/webhook-endpoints/{id}/test`; delivered to that endpoint only, whatever it subscribes to.',
  'webhook_endpoint.disabled':
    'The platform disabling an endpoint: its receiver answered 410 Gone, or every attempt failed for 5 days. ' +
    "A platform extra, not in the spec; delivered to the tenant's other endpoints subscribed to it.",
  'appointment.no_show':
    "The booking workflow at an appointment's no-show deadline (its end plus a grace) when nobody checked in, or " +
    '`POST /v1/appointments/{id}/no-show`. A platform extra, not in the spec.',
  'appointment.reminder_due':
    "The booking workflow, at each of the location's `reminderOffsetsMinutes` before a CONFIRMED appointment " +
    '(once per offset and start; again after a reschedule). A platform extra, not in the spec.',
}
