/**
 * @module Which scope reads which events. `webhooks.read` reads every event (the event log is the webhooks' log). An
 * event is also about one resource, so whoever may read that resource may read its events: an integration holding
 * only `bookings` sees its bookings' events at GET /v1/events without being given the webhook configuration as well.
 * The mapping is here, once; a new event type does not compile until it names its scope.
 */
import { principalAllows, type Principal } from '../auth/principal.ts'
import type { Scope } from '../auth/scopes.ts'
import { EVENT_DATA_SCHEMAS, type EventType } from './event-catalogue.ts'

/** The scope that reads everything in the event log. */
export const ALL_EVENTS_SCOPE = 'webhooks.read' satisfies Scope

/** The read scope of the resource each event type is about. */
export const EVENT_READ_SCOPES = {
  'booking.created': 'bookings.read',
  'booking.cancelled': 'bookings.read',
  'appointment.rescheduled': 'bookings.read',
  'appointment.completed': 'bookings.read',
  'appointment.no_show': 'bookings.read',
  'appointment.reminder_due': 'bookings.read',
  'payment.succeeded': 'payments.read',
  'payment.disputed': 'payments.read',
  'reconciliation.mismatch': 'payments.read',
  'assessment.due': 'assessments.read',
  'assessment.completed': 'assessments.read',
  'provider.approved': 'providers.read',
  'child.registered': 'children.read',
  'session.note_added': 'sessions.read',
  // About the webhook configuration itself.
  'webhook.test': 'webhooks.read',
  'webhook_endpoint.disabled': 'webhooks.read',
} as const satisfies Record<EventType, Scope>

const EVENT_TYPES = Object.keys(EVENT_DATA_SCHEMAS) as EventType[]

/** Every scope that reads some events: the alternatives GET /v1/events accepts. */
export const EVENT_LIST_SCOPES: Scope[] = [
  ALL_EVENTS_SCOPE,
  ...new Set(Object.values(EVENT_READ_SCOPES).filter((scope) => scope !== ALL_EVENTS_SCOPE)),
]

/**
 * The event types a caller may read: all of them with `webhooks.read`, else those whose resource it may read.
 * @returns `'all'`, or the readable types (empty when none)
 */
export function readableEventTypes(principal: Principal): 'all' | EventType[] {
  if (principalAllows(principal, ALL_EVENTS_SCOPE, 'GET')) return 'all'
  return EVENT_TYPES.filter((type) => principalAllows(principal, EVENT_READ_SCOPES[type], 'GET'))
}

/** The scope that reads events of `type`, or undefined for a type that does not exist. */
export const eventReadScope = (type: string): Scope | undefined =>
  Object.hasOwn(EVENT_READ_SCOPES, type) ? EVENT_READ_SCOPES[type as EventType] : undefined
