/**
 * @module POST /processor-webhooks/stripe and /processor-webhooks/stripe/connect: verify the signature over the raw
 * body (never a re-serialised parse of it) with the endpoint's own secrets, apply the event once in a unit of work of
 * its own (domain/payments/processor-events.ts), and answer 2xx only after that committed.
 */
import { OpenAPIHono } from '@hono/zod-openapi'
import type { Context } from 'hono'
import { applyProcessorEvent } from '../../../domain/payments/processor-events.ts'
import type { WebhookEndpointKind } from '../../../domain/payments/online-processor-events.ts'
import { ProcessorSignatureError } from '../../../domain/payments/online-processor.ts'
import { AppError, routeNotFound } from '../../../domain/errors.ts'
import type { AppDeps, AppEnv } from '../../app-env.ts'
import { stripeConnectWebhookRouteDoc, stripeWebhookRouteDoc } from './processor-webhooks.routes.ts'

const invalidSignature = (detail: string) => new AppError(400, 'invalid_signature', 'Invalid signature', { detail })

export function processorWebhookRoutes({
  db,
  clock,
  logger,
  onlinePayments,
  paymentFlows,
}: Pick<AppDeps, 'db' | 'clock' | 'logger' | 'onlinePayments' | 'paymentFlows'>) {
  const app = new OpenAPIHono<AppEnv>()
  app.openAPIRegistry.registerPath(stripeWebhookRouteDoc)
  app.openAPIRegistry.registerPath(stripeConnectWebhookRouteDoc)

  const receive = (endpoint: WebhookEndpointKind) => async (c: Context<AppEnv>) => {
    if (onlinePayments?.name !== 'stripe') throw routeNotFound(c.req.path)
    const raw = await c.req.text()
    let parsed
    try {
      parsed = onlinePayments.parseWebhook(raw, c.req.header('Stripe-Signature'), endpoint)
    } catch (error) {
      if (error instanceof ProcessorSignatureError) throw invalidSignature(error.message)
      throw error
    }
    const { outcome, tenantId } = await applyProcessorEvent(
      { db, processor: onlinePayments, flows: paymentFlows, now: clock() },
      parsed
    )
    // Ids only: the event's id and types, and the tenant it concerned (never amounts or the payer's details).
    logger.info(
      {
        requestId: c.get('requestId'),
        processorEvent: parsed.envelope.eventId,
        type: parsed.envelope.type,
        kind: parsed.event.kind,
        outcome,
        ...(tenantId ? { tenantId } : {}),
      },
      'processor webhook'
    )
    return c.json({ received: true as const, outcome }, 200)
  }
  app.post('/processor-webhooks/stripe', receive('platform'))
  app.post('/processor-webhooks/stripe/connect', receive('connect'))
  return app
}
