/**
 * @module Activities of webhook delivery: the delivery pump's long-running loop (domain/webhooks/delivery-pump.ts),
 * a failing endpoint's retry step (endpoint-retry.ts), and the hand-over of a delivery whose workflow of the earlier
 * workflow-per-delivery design is still running (docs/webhooks.md, "Migration"). The HTTP agents are built once per
 * worker, so keep-alive connections to receivers are reused across deliveries.
 */
import { Context } from '@temporalio/activity'
import type { Db } from '../infra/db.ts'
import { handOverToQueue } from '../domain/webhooks/legacy-handover.ts'
import { runDeliveryPump, type TenantSlotsObserver } from '../domain/webhooks/delivery-pump.ts'
import { endpointRetryStep } from '../domain/webhooks/endpoint-retry.ts'
import { createWebhookPoster } from '../adapters/webhook-http/webhook-poster.ts'
import type { WebhookPoster } from '../domain/webhooks/post-webhook.ts'
import { createWebhookWorkflowCalls } from '../domain/webhooks/webhook-workflow-calls.ts'
import type { WebhookSettings } from '../domain/webhooks/webhook-settings.ts'
import type { AttemptObserver } from '../domain/webhooks/record-batch.ts'
import type { Metrics } from '../infra/metrics/metrics-registry.ts'
import { systemClock, type Clock } from '../infra/clock.ts'
import { createLogger, type Logger } from '../infra/logger.ts'
import type { SecretBox } from '../infra/secret-box.ts'
import type {
  DeliveryPumpRunInput,
  DeliveryPumpRunResult,
  EndpointRetryStepInput,
  WebhookActivities,
} from '../common/webhooks/webhook-queue-contract.ts'
import type { WebhookAttemptInput, WebhookAttemptResult } from '../common/webhooks/webhook-delivery-contract.ts'

export interface WebhookActivityDeps {
  db: Db
  webhooks: WebhookSettings
  /** Opens the endpoints' secrets and keys, stored sealed (infra/secret-box.ts). */
  secrets: SecretBox
  /** Injectable for tests; by default one poster per worker under `webhooks.network` and `webhooks.timeoutMs`. */
  poster?: WebhookPoster
  /** The activities' clock (activities/index.ts). */
  clock?: Clock
  logger?: Logger
  /** Aborted when the worker process is asked to stop: the pump ends its run at once. */
  stopping?: AbortSignal
  /** The worker's metrics: attempts by outcome, receiver latency, slots by tenant (docs/operations.md). */
  metrics?: Metrics
}

/** Counts recorded attempts by what they mean for their delivery. */
function attemptObserver(metrics: Metrics): AttemptObserver {
  return (records) => {
    for (const record of records) {
      const outcome = record.succeeded
        ? 'succeeded'
        : record.gone
          ? 'gone'
          : !record.attempted
            ? 'not_attempted'
            : record.status === 'FAILED'
              ? 'failed'
              : 'retry'
      metrics.webhookAttempts.inc({ outcome })
      if (!record.attempted) continue
      metrics.webhookAttemptDuration.observe(record.latencyMs / 1000)
      metrics.webhookAttemptSeconds.inc({ tenant: record.tenantId }, record.latencyMs / 1000)
    }
  }
}

/** Keeps the gauge of the slots each tenant takes in the pumps (a worker's pumps add to the same series). */
const tenantSlotsObserver =
  (metrics: Metrics): TenantSlotsObserver =>
  (tenant, change) =>
    metrics.webhookDeliveriesInFlight.inc({ tenant }, change)

/** Creates the webhook activities: the interface the webhook workflows proxy (common/webhooks/webhook-queue-contract.ts). */
export function createWebhookActivities({
  db,
  webhooks,
  secrets,
  poster,
  clock,
  logger,
  stopping,
  metrics,
}: WebhookActivityDeps): WebhookActivities {
  const http = poster ?? createWebhookPoster({ timeoutMs: webhooks.timeoutMs, network: webhooks.network })
  const observe = metrics && attemptObserver(metrics)
  const tenantSlots = metrics && tenantSlotsObserver(metrics)
  const now = clock ?? systemClock
  const log = logger ?? createLogger('info', 'webhooks')
  return {
    /**
     * Runs the pump of one partition for `runForMs`, heartbeating; stops early when cancelled (worker shutdown).
     * A partition beyond WEBHOOK_PUMP_PARTITIONS is retired: its workflow ends.
     */
    async runWebhookDeliveryPump(input: DeliveryPumpRunInput): Promise<DeliveryPumpRunResult> {
      if (input.partition >= webhooks.pump.partitions) return { retired: true, attempted: 0 }
      const context = Context.current()
      const stats = await runDeliveryPump(
        {
          db,
          poster: http,
          settings: webhooks,
          now,
          secrets,
          retries: createWebhookWorkflowCalls({
            temporal: context.client,
            taskQueue: context.info.taskQueue,
            retry: webhooks.retry,
          }),
          logger: log,
          observe,
          tenantSlots,
        },
        {
          partition: input.partition,
          runForMs: input.runForMs,
          // The SDK cancels activities only after the worker's grace time; the process's own signal comes first.
          signal: stopping ? AbortSignal.any([context.cancellationSignal, stopping]) : context.cancellationSignal,
          heartbeat: () => context.heartbeat(),
        }
      )
      return { retired: false, attempted: stats.attempted }
    },

    /** One step of a failing endpoint's retry workflow. */
    async webhookEndpointRetryStep(input: EndpointRetryStepInput) {
      return endpointRetryStep({ db, poster: http, settings: webhooks, now, secrets, observe }, input)
    },

    /** The next attempt of a delivery workflow of the earlier design: its delivery goes to the queue instead. */
    async attemptWebhookDelivery(input: WebhookAttemptInput): Promise<WebhookAttemptResult> {
      return { outcome: await handOverToQueue(db, input, now()) }
    },
  }
}
