/**
 * @module Activities of the webhook delivery workflow: one attempt per call (domain/webhooks/deliver-once.ts). The
 * HTTP agents are built once per worker, so keep-alive connections to receivers are reused across deliveries.
 */
import type { Db } from '../infra/db.ts'
import { deliverOnce, type DeliverOnceInput, type DeliverOnceResult } from '../domain/webhooks/deliver-once.ts'
import { createWebhookPoster, type WebhookPoster } from '../domain/webhooks/post-webhook.ts'
import type { WebhookSettings } from '../domain/webhooks/webhook-settings.ts'
import type { Clock } from '../infra/clock.ts'

export interface WebhookActivityDeps {
  db: Db
  webhooks: WebhookSettings
  /** Injectable for tests; by default one poster per worker under `webhooks.network` and `webhooks.timeoutMs`. */
  poster?: WebhookPoster
  /** The activities' clock (activities/index.ts). */
  clock?: Clock
}

/** Creates the webhook activities. */
export function createWebhookActivities({ db, webhooks, poster, clock }: WebhookActivityDeps) {
  const http = poster ?? createWebhookPoster({ timeoutMs: webhooks.timeoutMs, network: webhooks.network })
  return {
    /** One attempt: POST, record, and say whether (and when) to try again. Receiver failures are results, not errors. */
    async attemptWebhookDelivery(input: DeliverOnceInput): Promise<DeliverOnceResult> {
      return deliverOnce({ db, poster: http, settings: webhooks, now: clock }, input)
    },
  }
}

export type WebhookActivities = ReturnType<typeof createWebhookActivities>
