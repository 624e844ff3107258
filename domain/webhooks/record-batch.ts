/**
 * @module Records a batch of attempts (delivery-queue.ts) and carries out what it means for the endpoints: a 410 or
 * five days of failures disable the endpoint and tell the tenant (endpoint-status.ts); a breaker that closed releases
 * the deliveries it held; a breaker that opened is handed to the caller, which starts the endpoint's retry workflow.
 */
import type { Db } from '../../infra/db.ts'
import { runInUnitOfWork } from '../../infra/unit-of-work.ts'
import { recordAttempts, releaseHeld, type AttemptRecord, type EndpointChange } from './delivery-queue.ts'
import { disableEndpoint, failHeldDeliveries, type AutomaticDisableReason } from './endpoint-status.ts'

export interface RecordBatchDeps {
  db: Db
  circuitFailures: number
  disableAfterMs: number
}

const DISABLED_REASONS: Record<AutomaticDisableReason, string> = {
  GONE: 'receiver answered 410 Gone: endpoint disabled',
  FAILING: 'endpoint disabled after failing for too long',
}

/**
 * Records `records` and applies their consequences.
 * @returns the endpoints whose state changed (`opened` ones need their retry workflow)
 */
export async function recordBatch(deps: RecordBatchDeps, records: AttemptRecord[], now: Date) {
  const changes = await recordAttempts(deps.db, records, { now, circuitFailures: deps.circuitFailures })
  const toDisable = new Map<string, { tenantId: string; reason: AutomaticDisableReason; at: Date }>()
  for (const record of records) {
    if (record.gone) toDisable.set(record.endpointId, { tenantId: record.tenantId, reason: 'GONE', at: now })
  }
  const cutoff = now.getTime() - deps.disableAfterMs
  for (const change of changes) {
    if (change.failingSince && change.failingSince.getTime() <= cutoff && !toDisable.has(change.endpointId)) {
      toDisable.set(change.endpointId, { tenantId: change.tenantId, reason: 'FAILING', at: now })
    }
  }
  // Rare (a receiver gone, or five days of failures): one unit of work each, in the endpoint's tenant.
  for (const [endpointId, { tenantId, reason, at }] of toDisable) {
    await runInUnitOfWork(deps.db, tenantId, async (uow) => {
      await disableEndpoint(uow, endpointId, reason, at)
      await failHeldDeliveries(uow, endpointId, DISABLED_REASONS[reason], at)
    })
  }
  await releaseHeld(
    deps.db,
    changes.filter((c) => c.closed).map((c) => c.endpointId),
    now
  )
  return changes.filter((change: EndpointChange) => !toDisable.has(change.endpointId))
}
