/**
 * @module POST /processor-webhooks/stripe: verifies the signature over the raw body (never a re-serialised parse of
 * it), applies the confirmation in a unit of work of its own (domain/payments/processor-events.ts), and answers 2xx
 * only after that committed.
 */
import { OpenAPIHono } from '@hono/zod-openapi'
import { applyProcessorEvent } from '../../../domain/payments/processor-events.ts'
import { ProcessorSignatureError } from '../../../domain/payments/payment-processor.ts'
import { AppError, routeNotFound } from '../../../domain/errors.ts'
import type { AppDeps, AppEnv } from '../../app-env.ts'
import { stripeWebhookRouteDoc } from './processor-webhooks.routes.ts'

const invalidSignature = (detail: string) => new AppError(400, 'invalid_signature', 'Invalid signature', { detail })

export function processorWebhookRoutes({
  db,
  clock,
  logger,
  onlinePayments,
}: Pick<AppDeps, 'db' | 'clock' | 'logger' | 'onlinePayments'>) {
  const app = new OpenAPIHono<AppEnv>()
  app.openAPIRegistry.registerPath(stripeWebhookRouteDoc)
  app.post('/processor-webhooks/stripe', async (c) => {
    if (onlinePayments?.name !== 'stripe') throw routeNotFound(c.req.path)
    const raw = await c.req.text()
    let event
    try {
      event = onlinePayments.parseWebhook(raw, c.req.header('Stripe-Signature'))
    } catch (error) {
      if (error instanceof ProcessorSignatureError) throw invalidSignature(error.message)
      throw error
    }
    const outcome = await applyProcessorEvent(db, onlinePayments.name, event, clock())
    // Ids only: the event's id and kind, and the tenant it concerned (never amounts or the payer's details).
    logger.info(
      {
        requestId: c.get('requestId'),
        processorEvent: event.eventId,
        kind: event.kind,
        outcome,
        ...('tenantId' in event ? { tenantId: event.tenantId } : {}),
      },
      'processor webhook'
    )
    return c.json({ received: true as const, outcome }, 200)
  })
  return app
}
