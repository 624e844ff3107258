/**
 * @module Keeps the delivery pump workflows running (docs/webhooks.md, "Delivery"): one per partition, started by
 * every API instance at start and checked every minute (webhook-workflow-calls.ts `startPumps`). A start finds a
 * running pump and changes nothing, so any number of instances may do this; a pump an operator terminated is back
 * within the minute.
 */
import { startBackgroundLoop } from '../../infra/background-loop.ts'
import type { Logger } from '../../infra/logger.ts'
import type { Client } from '@temporalio/client'
import type { WebhookSettings } from './webhook-settings.ts'
import { createWebhookWorkflowCalls } from './webhook-workflow-calls.ts'

const CHECK_INTERVAL_MS = 60_000

/**
 * Ensures the pumps now and every minute.
 * @returns a function that stops checking
 */
export function keepDeliveryPumpsRunning(
  temporal: Client,
  taskQueue: string,
  settings: Pick<WebhookSettings, 'pump' | 'retry'>,
  logger: Logger
): () => Promise<void> {
  const { partitions } = settings.pump
  if (partitions === 0) return async () => undefined
  const workflow = createWebhookWorkflowCalls({ temporal, taskQueue, retry: settings.retry })
  return startBackgroundLoop({
    run: () => workflow.startPumps(partitions),
    intervalMs: CHECK_INTERVAL_MS,
    onError: (error) => logger.warn({ err: error }, 'webhook delivery pumps not started; trying again in a minute'),
  })
}
