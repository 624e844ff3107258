/** @module /v1/webhook-endpoints: thin handlers over the endpoint service, the delivery log and redelivery. */
import { OpenAPIHono } from '@hono/zod-openapi'
import { getDelivery, listDeliveries } from '../../../domain/webhooks/delivery-log.ts'
import {
  createEndpoint,
  deleteEndpoint,
  getEndpoint,
  listEndpoints,
  rotateEndpointSecret,
  sendTestEvent,
  updateEndpoint,
} from '../../../domain/webhooks/endpoint-service.ts'
import { recoverFailed, redeliverEvent } from '../../../domain/webhooks/redelivery.ts'
import { webhookSettings } from '../../../domain/webhooks/webhook-settings.ts'
import type { AppDeps, AppEnv } from '../../app-env.ts'
import { validationHook } from '../../openapi/validation-hook.ts'
import {
  createEndpointRoute,
  deleteEndpointRoute,
  getEndpointDeliveryRoute,
  getEndpointRoute,
  listEndpointDeliveriesRoute,
  listEndpointsRoute,
  recoverRoute,
  redeliverRoute,
  rotateSecretRoute,
  sendTestEventRoute,
  updateEndpointRoute,
} from './webhook-endpoints.routes.ts'
import { endpointView, toDelivery } from './webhook-views.ts'

export function webhookEndpointRoutes({
  config,
  clock,
  outbound,
  secrets,
}: Pick<AppDeps, 'config' | 'clock' | 'outbound' | 'secrets'>) {
  const rules = { ...webhookSettings(config), vetAddress: outbound.vetAddress }
  const toEndpoint = endpointView(secrets)
  return new OpenAPIHono<AppEnv>({ defaultHook: validationHook })
    .openapi(createEndpointRoute, async (c) => {
      const { endpoint, secret } = await createEndpoint(
        c.var.uow,
        c.req.valid('json'),
        rules,
        secrets,
        c.var.principal.actorId
      )
      c.header('Location', `/v1/webhook-endpoints/${endpoint.id}`)
      // The answer carries the signing secret: its idempotency record is sealed, or not kept (replay answers 409).
      c.set('sealStoredResponse', true)
      return c.json({ ...toEndpoint(endpoint), secret }, 201)
    })
    .openapi(listEndpointsRoute, async (c) => {
      const page = await listEndpoints(c.var.uow, c.req.valid('query'))
      return c.json({ data: page.data.map(toEndpoint), nextCursor: page.nextCursor }, 200)
    })
    .openapi(getEndpointRoute, async (c) =>
      c.json(toEndpoint(await getEndpoint(c.var.uow, c.req.valid('param').id)), 200)
    )
    .openapi(updateEndpointRoute, async (c) =>
      c.json(
        toEndpoint(
          await updateEndpoint(
            c.var.uow,
            c.req.valid('param').id,
            c.req.valid('json'),
            rules,
            secrets,
            c.var.principal.actorId
          )
        ),
        200
      )
    )
    .openapi(deleteEndpointRoute, async (c) => {
      await deleteEndpoint(c.var.uow, c.req.valid('param').id)
      return c.body(null, 204)
    })
    .openapi(rotateSecretRoute, async (c) => {
      const { endpoint, secret } = await rotateEndpointSecret(c.var.uow, c.req.valid('param').id, clock(), secrets)
      c.set('sealStoredResponse', true)
      return c.json({ ...toEndpoint(endpoint), secret }, 200)
    })
    .openapi(sendTestEventRoute, async (c) =>
      c.json(await sendTestEvent(c.var.uow, c.req.valid('param').id, clock()), 202)
    )
    .openapi(listEndpointDeliveriesRoute, async (c) => {
      const page = await listDeliveries(c.var.uow, { endpointId: c.req.valid('param').id }, c.req.valid('query'))
      return c.json({ data: page.data.map(toDelivery), nextCursor: page.nextCursor }, 200)
    })
    .openapi(getEndpointDeliveryRoute, async (c) => {
      const { id, deliveryId } = c.req.valid('param')
      return c.json(toDelivery(await getDelivery(c.var.uow, id, deliveryId)), 200)
    })
    .openapi(redeliverRoute, async (c) => {
      const delivery = await redeliverEvent(c.var.uow, c.req.valid('param').id, c.req.valid('json').eventId)
      return c.json(toDelivery(delivery), 202)
    })
    .openapi(recoverRoute, async (c) => {
      const { from, to } = c.req.valid('json')
      return c.json(await recoverFailed(c.var.uow, c.req.valid('param').id, new Date(from), new Date(to)), 202)
    })
}
