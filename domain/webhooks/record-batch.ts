/**
 * @module Records a batch of attempts (delivery-queue.ts) and carries out what it means for the endpoints: a 410 or
 * five days of failures disable the endpoint and tell the tenant (endpoint-status.ts); a breaker that opened holds
 * the endpoint's queued deliveries and is handed to the caller, which starts the endpoint's retry workflow; one that
 * closed releases them (held-deliveries.ts).
 */
import type { Db } from '../../infra/db.ts'
import { runInUnitOfWork } from '../../infra/unit-of-work.ts'
import { recordAttempts } from './attempt-records.ts'
import type { AttemptRecord } from './attempt-record.ts'
import { disableEndpoint, failHeldDeliveries, type AutomaticDisableReason } from './endpoint-status.ts'
import { holdDeliveries, releaseHeld } from './held-deliveries.ts'

export interface RecordBatchDeps {
  db: Db
  circuitFailures: number
  disableAfterMs: number
  /** Told of every batch once it is recorded (the worker's metrics). */
  observe?: AttemptObserver
}

/** Hears of recorded attempts: outcomes and receiver latencies, for metrics. */
export type AttemptObserver = (records: readonly AttemptRecord[]) => void

const DISABLED_REASONS: Record<AutomaticDisableReason, string> = {
  GONE: 'receiver answered 410 Gone: endpoint disabled',
  FAILING: 'endpoint disabled after failing for too long',
}

/**
 * Records `records` and applies their consequences.
 * @returns the endpoints whose state changed (`opened` ones need their retry workflow)
 */
export async function recordBatch(deps: RecordBatchDeps, records: AttemptRecord[], now: Date) {
  const options = { now, circuitFailures: deps.circuitFailures }
  const gone = records.filter((record) => record.gone)
  const changes = await recordAttempts(
    deps.db,
    records.filter((record) => !record.gone),
    options
  )
  // A 410 (rare) is recorded in the endpoint's tenant unit together with disabling it, so nobody sees the delivery
  // ended while its endpoint is still enabled.
  for (const record of gone) {
    await runInUnitOfWork(deps.db, record.tenantId, async (uow) => {
      await recordAttempts(uow.tx, [record], options)
      await disableEndpoint(uow, record.endpointId, 'GONE', now)
      await failHeldDeliveries(uow, record.endpointId, DISABLED_REASONS.GONE, now)
    })
  }
  const cutoff = now.getTime() - deps.disableAfterMs
  // Five days of failures: disabled just after the batch that showed it (one unit each, in the endpoint's tenant).
  const failing = changes.filter((c) => c.failingSince && c.failingSince.getTime() <= cutoff)
  for (const change of failing) {
    await runInUnitOfWork(deps.db, change.tenantId, async (uow) => {
      await disableEndpoint(uow, change.endpointId, 'FAILING', now)
      await failHeldDeliveries(uow, change.endpointId, DISABLED_REASONS.FAILING, now)
    })
  }
  // A breaker that opened holds what its endpoint has queued (its retry workflow takes over); one that closed makes
  // it due again. Both rare: a healthy endpoint's batches do neither.
  await holdDeliveries(
    deps.db,
    changes.filter((c) => c.opened && !failing.includes(c)).map((c) => c.endpointId)
  )
  deps.observe?.(records)
  await releaseHeld(
    deps.db,
    changes.filter((c) => c.closed).map((c) => c.endpointId),
    now
  )
  return changes.filter((change) => !failing.includes(change))
}
