/**
 * @module Recording a domain event. Called by the operation that causes the event, inside that operation's unit of
 * work, so the event exists exactly when the change does (a transactional outbox): a rollback leaves no event, and a
 * crash after commit leaves an event that the dispatcher's sweep still delivers (domain/webhooks/webhook-dispatcher.ts,
 * docs/webhooks.md). Recording never waits for a delivery: it adds one row to the caller's transaction.
 *
 * An event nobody listens to is recorded as already fanned out: when its tenant has no enabled webhook endpoint, and no
 * enabled agent workflow triggered by its type, the row says so at once, so neither fan-out spends a statement on it
 * later (most events: a centre with no integration; issue 22). What the statement sees is what a fan-out just after
 * the commit would have seen, but for an endpoint or agent workflow committed in the moments between this statement
 * and the commit, which counts as created after the event (docs/webhooks.md, "Delivery").
 */
import { Prisma } from '../../generated/prisma/client.ts'
import type { UnitOfWork } from '../../infra/unit-of-work.ts'
import { newId } from '../ids.ts'
import { EVENT_DATA_SCHEMAS, type EventData, type EventType } from './event-catalogue.ts'
import { signalEventsRecorded } from './events-recorded-signal.ts'

/** An event as stored and as delivered (the envelope of docs/webhooks.md, "Events"). */
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
  // Straight through the driver (UnitOfWork.query): every booking and change records one.
  const [row] = await uow.query<{ heard: boolean }>(Prisma.sql`
    INSERT INTO events (id, tenant_id, type, data, created_at, fanned_out_at, agent_dispatched_at)
    SELECT ${event.id}, ${uow.tenantId}, ${type}, ${JSON.stringify(event.data)}::jsonb, ${event.createdAt},
      CASE WHEN EXISTS (SELECT 1 FROM webhook_endpoints w WHERE w.tenant_id = ${uow.tenantId} AND w.enabled)
        THEN NULL ELSE ${event.createdAt}::timestamptz END,
      CASE WHEN EXISTS (
        SELECT 1 FROM agent_workflows a
        WHERE a.tenant_id = ${uow.tenantId} AND a.enabled AND a.deleted_at IS NULL
          AND ${type} = ANY(a.event_types) AND a.created_at <= ${event.createdAt}::timestamptz)
        THEN NULL ELSE ${event.createdAt}::timestamptz END
    RETURNING agent_dispatched_at IS NULL AS heard`)
  // An event some agent workflow listens to: after commit the agent dispatcher is woken to create its runs (webhook
  // pumps find their events on their own); if this process dies first, the dispatcher's sweep still finds it.
  if (row?.heard) uow.afterCommit(async () => signalEventsRecorded())
  return event
}
