/**
 * @module The event envelope (docs/webhooks.md, "Events"), as delivered to webhooks and listed by `GET /v1/events`:
 * `{ id, type, createdAt (UTC, Z), data }`.
 */
import type { EventType } from './event-catalogue.ts'

export interface EventEnvelope {
  id: string
  type: EventType
  /** ISO 8601 in UTC with Z. */
  createdAt: string
  data: Record<string, unknown>
}

/** The envelope of a stored event. */
export const toEnvelope = (event: { id: string; type: string; createdAt: Date; data: unknown }): EventEnvelope => ({
  id: event.id,
  // Only catalogue types with schema-checked data are ever stored: recordEvent is the one writer of events.
  type: event.type as EventType,
  createdAt: event.createdAt.toISOString(),
  data: event.data as Record<string, unknown>,
})
