/**
 * @module Which endpoints an event goes to: those subscribed to its type or to `*` (every subscribable type, the
 * platform's extras included). The test event goes only to the endpoint it was sent for, whatever it subscribes to.
 * The rule is SQL because fan-out applies it inside the statement that creates the deliveries (delivery-queue.ts).
 */
import { Prisma } from '../../generated/prisma/client.ts'
import { ALL_SUBSCRIBABLE_EVENT_TYPES } from '../events/event-catalogue.ts'

export const ALL_EVENTS = '*'

const TEST_EVENT = 'webhook.test'

/**
 * Whether the endpoint receives the event, as an SQL condition over the aliases given: `event` a row with `type` and
 * `data` (the events table's), `endpoint` one with `id` and `event_types` (webhook_endpoints').
 */
export function subscribesSql(event: string, endpoint: string): Prisma.Sql {
  const [e, w] = [Prisma.raw(event), Prisma.raw(endpoint)]
  return Prisma.sql`CASE WHEN ${e}.type = ${TEST_EVENT} THEN ${e}.data ->> 'endpointId' = ${w}.id
    ELSE ${e}.type = ANY(${[...ALL_SUBSCRIBABLE_EVENT_TYPES]}::text[]) AND ${w}.event_types && ARRAY[${e}.type, ${ALL_EVENTS}] END`
}
