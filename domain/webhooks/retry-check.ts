/**
 * @module The pump's periodic look at failing endpoints (docs/webhooks.md, "A failing endpoint"): each open-breaker
 * endpoint that holds deliveries has its retry workflow running. Split from the pump's loop (delivery-pump.ts).
 */
import type { Db } from '../../infra/db.ts'
import type { Logger } from '../../infra/logger.ts'
import { endpointsHoldingDeliveries, holdStrays } from './held-deliveries.ts'

/** Starts (or wakes) failing endpoints' retry workflows: the pump's only use of Temporal. */
export interface EndpointRetryStarter {
  /** The endpoint's breaker just opened, or it holds new deliveries: start its retry workflow, or wake it. */
  wake(endpoint: { endpointId: string; tenantId: string }): Promise<void>
  /** Starts the endpoint's retry workflow unless one is running (the periodic check). */
  ensureRunning(endpoint: { endpointId: string; tenantId: string }): Promise<void>
}

/**
 * Starts the retry workflow of every open-breaker endpoint of the partition that holds deliveries and has none
 * running: what a crash between opening a breaker and starting its workflow, or a workflow that ended just as a
 * delivery was held, leaves behind. Holds those endpoints' stray due rows (a fan-out racing the breaker's opening).
 */
export async function checkRetryWorkflows(
  deps: { db: Db; retries: EndpointRetryStarter; logger: Logger; now: () => Date },
  partition: number,
  partitions: number
): Promise<void> {
  const holding = await endpointsHoldingDeliveries(deps.db, partition, partitions)
  await holdStrays(
    deps.db,
    holding.map((endpoint) => endpoint.endpointId),
    deps.now()
  )
  for (const endpoint of holding) {
    await deps.retries
      .ensureRunning(endpoint)
      .catch((error: unknown) =>
        deps.logger.warn({ endpointId: endpoint.endpointId, err: error }, 'webhook retry check failed')
      )
  }
}
