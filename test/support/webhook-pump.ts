/**
 * @module The delivery pump's real dependencies for tests that drive it by hand (`pumpOnce`): the file's database,
 * the platform's webhook settings, a real poster, and the real retry workflow calls on the platform's Temporal.
 */
import type { Client } from '@temporalio/client'
import type { PumpDeps } from '../../domain/webhooks/delivery-pump.ts'
import { createWebhookPoster } from '../../adapters/webhook-http/webhook-poster.ts'
import { createWebhookWorkflowCalls } from '../../domain/webhooks/webhook-workflow-calls.ts'
import { webhookSettings } from '../../domain/webhooks/webhook-settings.ts'
import type { Config } from '../../infra/config.ts'
import type { Db } from '../../infra/db.ts'
import { createLogger } from '../../infra/logger.ts'
import { createSecretBox } from '../../infra/secret-box.ts'

/**
 * Builds the deps; `close()` the poster when done.
 * @param now - the pump's clock (a time-skipping server's, there)
 */
export function realPumpDeps(db: Db, config: Config, temporal: Client, now: () => Date = () => new Date()): PumpDeps {
  const settings = webhookSettings(config)
  return {
    db,
    poster: createWebhookPoster({ timeoutMs: settings.timeoutMs, network: settings.network }),
    settings,
    now,
    secrets: createSecretBox(config.SECRETS_ENCRYPTION_KEYS),
    retries: createWebhookWorkflowCalls({ temporal, taskQueue: config.TEMPORAL_TASK_QUEUE, retry: settings.retry }),
    logger: createLogger('silent', 'webhook-pump'),
  }
}
