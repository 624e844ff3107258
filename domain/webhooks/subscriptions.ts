/**
 * @module Which endpoints an event goes to: those subscribed to its type or to `*` (every subscribable type, the
 * platform's extras included). The test event goes only to the endpoint it was sent for, whatever it subscribes to.
 */
import { ALL_SUBSCRIBABLE_EVENT_TYPES, type EventType } from '../events/event-catalogue.ts'

export const ALL_EVENTS = '*'

/** Whether `endpoint` receives `event`. */
export function subscribes(
  endpoint: { id: string; eventTypes: string[] },
  event: { type: string; data: unknown }
): boolean {
  if (event.type === 'webhook.test') return (event.data as { endpointId?: unknown }).endpointId === endpoint.id
  if (!ALL_SUBSCRIBABLE_EVENT_TYPES.includes(event.type as EventType)) return false
  return endpoint.eventTypes.includes(ALL_EVENTS) || endpoint.eventTypes.includes(event.type)
}
