/**
 * @module Recording a domain event. Called by the operation that causes the event, inside that operation's unit of
 * work, so the event exists exactly when the change does (a transactional outbox): a rollback leaves no event, and a
 * crash after commit leaves an event that the dispatcher's sweep still delivers (domain/webhooks/webhook-dispatcher.ts,
 * docs/webhooks.md). Recording never waits for a delivery: it adds one row to the caller's transaction.
 */
import type { UnitOfWork } from '../../infra/unit-of-work.ts'
import { newId } from '../ids.ts'
import { EVENT_DATA_SCHEMAS, type EventData, type EventType } from './event-catalogue.ts'
import { signalEventsRecorded } from './events-recorded-signal.ts'

/** An event as stored and as delivered (the envelope of spec Part 2). */
export interface DomainEvent<T extends EventType = EventType> {
  id: string
  type: T
  createdAt: Date
  data: EventData<T>
}

export interface RecordEventOptions {
  /** When the event happened; defaults to now. */
  createdAt?: Date
}

/**
 * Records `type` with `data` in the unit's transaction.
 * @throws Error when `data` does not match the catalogue's schema for `type` (a programming error, never user input)
 */
export async function recordEvent<T extends EventType>(
  uow: UnitOfWork,
  type: T,
  data: EventData<T>,
  options: RecordEventOptions = {}
): Promise<DomainEvent<T>> {
  const parsed = EVENT_DATA_SCHEMAS[type].safeParse(data)
  if (!parsed.success) throw new Error(`event ${type} does not match its schema: ${parsed.error.message}`)
  const event = {
    id: newId('event'),
    type,
    createdAt: options.createdAt ?? new Date(),
    data: parsed.data as EventData<T>,
  }
  await uow.tx.event.create({
    data: { id: event.id, tenantId: uow.tenantId, type, data: event.data, createdAt: event.createdAt },
  })
  // The row is the outbox entry (`fanned_out_at` null): after commit the dispatcher is woken to fan it out to the
  // subscribed webhook endpoints; if this process dies first, the dispatcher's sweep still finds it.
  uow.afterCommit(async () => signalEventsRecorded())
  return event
}
