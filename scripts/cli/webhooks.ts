/**
 * @module `webhooks` commands: an operator's replays of a tenant's webhook deliveries after a receiver was fixed.
 * Thin over the same domain functions as the API's endpoints (delivery log, redelivery), run in the tenant's unit
 * of work (row-level security), printing what the API would show. A redelivery is a new delivery row, due at once,
 * that the workers' delivery pumps send (docs/webhooks.md): this process sends nothing and starts no workflow.
 */
import { parseArgs } from 'node:util'
import { endpointView, toDelivery } from '../../api/routes/webhook-endpoints/webhook-views.ts'
import type { Db } from '../../infra/db.ts'
import { runInUnitOfWork } from '../../infra/unit-of-work.ts'
import { listDeliveries, type DeliveryRow } from '../../domain/webhooks/delivery-log.ts'
import { listEndpoints, type EndpointRow } from '../../domain/webhooks/endpoint-service.ts'
import { recoverFailed, redeliverEvent } from '../../domain/webhooks/redelivery.ts'
import { printJson, secretBoxOf, withDatabase, type CliContext } from './database.ts'
import { required, UsageError, WEBHOOKS_USAGE } from './usage.ts'

/** The longest page the domain's list functions accept. */
const PAGE = 100

/** Every row of a cursor-paginated domain list, up to `max`. */
async function collect<T>(
  max: number,
  page: (cursor: string | undefined) => Promise<{ data: T[]; nextCursor: string | null }>
) {
  const rows: T[] = []
  let cursor: string | undefined
  do {
    const next = await page(cursor)
    rows.push(...next.data)
    cursor = next.nextCursor ?? undefined
  } while (cursor !== undefined && rows.length < max)
  return rows.slice(0, max)
}

const endpointsOf = (db: Db, tenant: string, enabled?: boolean) =>
  collect<EndpointRow>(Number.MAX_SAFE_INTEGER, (cursor) =>
    runInUnitOfWork(db, tenant, (uow) => listEndpoints(uow, { limit: PAGE, cursor, sort: 'createdAt', enabled }))
  )

function instant(value: string | undefined, name: string): Date {
  const text = required(value, name, WEBHOOKS_USAGE)
  // Offsets required: an operator's local "2026-11-21T10:00" must not silently mean the server's time zone.
  const date = /(Z|[+-]\d{2}:\d{2})$/.test(text) ? new Date(text) : new Date(Number.NaN)
  if (Number.isNaN(date.getTime()))
    throw new UsageError(`--${name} must be an ISO 8601 instant with Z or an offset, got "${text}".`)
  return date
}

function positiveInteger(value: string, name: string): number {
  const number = Number(value)
  if (!Number.isInteger(number) || number < 1)
    throw new UsageError(`--${name} must be a positive integer, got "${value}".`)
  return number
}

export async function webhooks(command: string | undefined, args: string[], cli: CliContext) {
  const { values } = parseArgs({
    args,
    options: {
      tenant: { type: 'string' },
      endpoint: { type: 'string' },
      event: { type: 'string' },
      enabled: { type: 'string' },
      from: { type: 'string' },
      to: { type: 'string' },
      limit: { type: 'string', default: '100' },
    },
  })
  if (!['endpoints', 'failed', 'redeliver', 'redeliver-failed'].includes(command ?? ''))
    throw new UsageError(WEBHOOKS_USAGE)
  const tenant = required(values.tenant, 'tenant', WEBHOOKS_USAGE)

  if (command === 'endpoints') {
    if (values.enabled !== undefined && values.enabled !== 'true' && values.enabled !== 'false') {
      throw new UsageError(`--enabled must be true or false.\n\n${WEBHOOKS_USAGE}`)
    }
    const enabled = values.enabled === undefined ? undefined : values.enabled === 'true'
    const toEndpoint = endpointView(secretBoxOf(cli))
    await withDatabase(cli, async (db) => printJson(cli, (await endpointsOf(db, tenant, enabled)).map(toEndpoint)))
    return
  }
  if (command === 'failed') {
    const limit = positiveInteger(values.limit, 'limit')
    await withDatabase(cli, async (db) => {
      const endpointIds = values.endpoint ? [values.endpoint] : (await endpointsOf(db, tenant)).map((e) => e.id)
      const failed: DeliveryRow[] = []
      for (const endpointId of endpointIds) {
        failed.push(
          ...(await collect<DeliveryRow>(limit, (cursor) =>
            runInUnitOfWork(db, tenant, (uow) =>
              listDeliveries(
                uow,
                { endpointId },
                { limit: Math.min(limit, PAGE), cursor, sort: '-createdAt', status: 'FAILED' }
              )
            )
          ))
        )
      }
      failed.sort((a, b) => b.createdAt.getTime() - a.createdAt.getTime() || (a.id < b.id ? 1 : -1))
      printJson(cli, failed.slice(0, limit).map(toDelivery))
    })
    return
  }
  const endpointId = required(values.endpoint, 'endpoint', WEBHOOKS_USAGE)
  if (command === 'redeliver') {
    const eventId = required(values.event, 'event', WEBHOOKS_USAGE)
    await withDatabase(cli, async (db) =>
      printJson(cli, toDelivery(await runInUnitOfWork(db, tenant, (uow) => redeliverEvent(uow, endpointId, eventId))))
    )
    return
  }
  const from = instant(values.from, 'from')
  const to = instant(values.to, 'to')
  await withDatabase(cli, async (db) =>
    printJson(cli, await runInUnitOfWork(db, tenant, (uow) => recoverFailed(uow, endpointId, from, to)))
  )
}
