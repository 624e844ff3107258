/**
 * @module Keeps the delivery pump workflows running (docs/webhooks.md, "Delivery"): one per partition, started by
 * every API instance at start and checked every minute. A start finds a running pump and changes nothing, so any
 * number of instances may do this; a pump an operator terminated is back within the minute.
 */
import type { Client } from '@temporalio/client'
import { TypedSearchAttributes } from '@temporalio/common'
import { startBackgroundLoop } from '../../infra/background-loop.ts'
import type { Logger } from '../../infra/logger.ts'
import { searchAttributeKeys } from '../../common/search-attributes-contract.ts'
import {
  WEBHOOK_PUMP_KIND,
  WEBHOOK_PUMP_WORKFLOW,
  deliveryPumpWorkflowId,
  type DeliveryPumpInput,
} from '../../common/webhooks/webhook-queue-contract.ts'

const CHECK_INTERVAL_MS = 60_000
const CALL_DEADLINE_MS = 5000

/** Starts the pumps that are not running. */
export async function ensureDeliveryPumps(temporal: Client, taskQueue: string, partitions: number): Promise<void> {
  for (let partition = 0; partition < partitions; partition++) {
    const input: DeliveryPumpInput = { partition }
    await temporal.withDeadline(Date.now() + CALL_DEADLINE_MS, () =>
      temporal.workflow.start(WEBHOOK_PUMP_WORKFLOW, {
        workflowId: deliveryPumpWorkflowId(taskQueue, partition),
        taskQueue,
        args: [input],
        workflowIdConflictPolicy: 'USE_EXISTING',
        typedSearchAttributes: new TypedSearchAttributes([
          { key: searchAttributeKeys.WorkflowKind, value: WEBHOOK_PUMP_KIND },
        ]),
        staticSummary: `Webhook delivery pump ${partition + 1} of ${partitions}`,
      })
    )
  }
}

/**
 * Ensures the pumps now and every minute.
 * @returns a function that stops checking
 */
export function keepDeliveryPumpsRunning(
  temporal: Client,
  taskQueue: string,
  partitions: number,
  logger: Logger
): () => Promise<void> {
  if (partitions === 0) return async () => undefined
  return startBackgroundLoop({
    run: () => ensureDeliveryPumps(temporal, taskQueue, partitions),
    intervalMs: CHECK_INTERVAL_MS,
    onError: (error) => logger.warn({ err: error }, 'webhook delivery pumps not started; trying again in a minute'),
  })
}
