/** @module Route table of /v1/webhook-endpoints: subscriptions, secrets, test events, delivery log, redelivery. */
import { COMMON_ERRORS, problemResponses, protectedRoute } from '../../openapi/routes.ts'
import { IdParam, pageOf, pathId } from '../../openapi/schemas.ts'
import { Event } from '../events/events.routes.ts'
import {
  RecoveryRequest,
  RecoveryResult,
  RedeliveryRequest,
  WebhookDelivery,
  WebhookDeliveryListQuery,
  WebhookEndpoint,
  WebhookEndpointCreate,
  WebhookEndpointListQuery,
  WebhookEndpointPatch,
  WebhookEndpointWithSecret,
} from './webhook-schemas.ts'

const json = <T>(schema: T) => ({ 'application/json': { schema } })
const tags = ['Webhooks']
const endpointId = IdParam('webhookEndpoint')
const WRITE_ERRORS = [400, 404, 409, 413, 415, 422, ...COMMON_ERRORS] as const

export const createEndpointRoute = protectedRoute('webhooks', {
  method: 'post',
  path: '/v1/webhook-endpoints',
  tags,
  summary: 'Subscribe a URL to events',
  description:
    'The response carries the signing `secret`, shown only this once. The URL is refused (400, field code ' +
    '`https_required`, `forbidden_address`, `unresolvable_host` or `invalid_url`) unless it is https:// and resolves ' +
    'to public addresses only (development and operator settings may allow http:// and private receivers).',
  request: { body: { required: true, content: json(WebhookEndpointCreate) } },
  responses: {
    201: { description: 'The endpoint, with its secret', content: json(WebhookEndpointWithSecret) },
    ...problemResponses(400, 409, 413, 415, 422, ...COMMON_ERRORS),
  },
})

export const listEndpointsRoute = protectedRoute('webhooks.read', {
  method: 'get',
  path: '/v1/webhook-endpoints',
  tags,
  summary: "List the tenant's webhook endpoints",
  request: { query: WebhookEndpointListQuery },
  responses: {
    200: { description: 'A page of endpoints', content: json(pageOf(WebhookEndpoint, 'WebhookEndpointPage')) },
    ...problemResponses(400, ...COMMON_ERRORS),
  },
})

export const getEndpointRoute = protectedRoute('webhooks.read', {
  method: 'get',
  path: '/v1/webhook-endpoints/{id}',
  tags,
  summary: 'Retrieve a webhook endpoint',
  request: { params: endpointId },
  responses: {
    200: { description: 'The endpoint', content: json(WebhookEndpoint) },
    ...problemResponses(404, ...COMMON_ERRORS),
  },
})

export const updateEndpointRoute = protectedRoute('webhooks', {
  method: 'patch',
  path: '/v1/webhook-endpoints/{id}',
  tags,
  summary: 'Update a webhook endpoint (JSON merge patch)',
  description:
    '`enabled: false` stops deliveries (in-flight ones end FAILED at their next attempt); `enabled: true` resumes ' +
    'them and clears the disabled reason. A changed URL is checked like a new one.',
  request: { params: endpointId, body: { required: true, content: json(WebhookEndpointPatch) } },
  responses: {
    200: { description: 'The endpoint', content: json(WebhookEndpoint) },
    ...problemResponses(...WRITE_ERRORS),
  },
})

export const deleteEndpointRoute = protectedRoute('webhooks', {
  method: 'delete',
  path: '/v1/webhook-endpoints/{id}',
  tags,
  summary: 'Delete a webhook endpoint and its delivery log',
  request: { params: endpointId },
  responses: { 204: { description: 'Deleted' }, ...problemResponses(404, 409, 422, ...COMMON_ERRORS) },
})

export const rotateSecretRoute = protectedRoute('webhooks', {
  method: 'post',
  path: '/v1/webhook-endpoints/{id}/rotate-secret',
  tags,
  summary: 'Rotate the signing secret',
  description:
    'Issues a new secret (and Ed25519 key, for asymmetric endpoints). For 24 hours every delivery carries ' +
    'signatures by both the new and the previous secret, so receivers can switch without losing a delivery.',
  request: { params: endpointId },
  responses: {
    200: { description: 'The endpoint with its new secret, shown only here', content: json(WebhookEndpointWithSecret) },
    ...problemResponses(404, 409, 422, ...COMMON_ERRORS),
  },
})

export const sendTestEventRoute = protectedRoute('webhooks', {
  method: 'post',
  path: '/v1/webhook-endpoints/{id}/test',
  tags,
  summary: 'Send a test event to the endpoint',
  description:
    'Records a `webhook.test` event and delivers it to this endpoint only, signed and retried like any other. ' +
    'Follow it with `GET /v1/events/{id}/deliveries`. A disabled endpoint is a 409.',
  request: { params: endpointId },
  responses: {
    202: { description: 'The test event', content: json(Event) },
    ...problemResponses(404, 409, 422, ...COMMON_ERRORS),
  },
})

export const listEndpointDeliveriesRoute = protectedRoute('webhooks.read', {
  method: 'get',
  path: '/v1/webhook-endpoints/{id}/deliveries',
  tags,
  summary: "The endpoint's delivery log, every attempt included",
  request: { params: endpointId, query: WebhookDeliveryListQuery },
  responses: {
    200: { description: 'A page of deliveries', content: json(pageOf(WebhookDelivery, 'WebhookDeliveryPage')) },
    ...problemResponses(400, 404, ...COMMON_ERRORS),
  },
})

export const getEndpointDeliveryRoute = protectedRoute('webhooks.read', {
  method: 'get',
  path: '/v1/webhook-endpoints/{id}/deliveries/{deliveryId}',
  tags,
  summary: 'One delivery with its attempts',
  request: {
    params: endpointId.extend({ deliveryId: pathId('webhookDelivery', 'deliveryId') }),
  },
  responses: {
    200: { description: 'The delivery', content: json(WebhookDelivery) },
    ...problemResponses(404, ...COMMON_ERRORS),
  },
})

export const redeliverRoute = protectedRoute('webhooks', {
  method: 'post',
  path: '/v1/webhook-endpoints/{id}/redeliveries',
  tags,
  summary: 'Deliver one event to the endpoint again',
  description: 'A new delivery, retried for 24 hours like any other. The endpoint must be enabled (else 409).',
  request: { params: endpointId, body: { required: true, content: json(RedeliveryRequest) } },
  responses: {
    202: { description: 'The new delivery', content: json(WebhookDelivery) },
    ...problemResponses(...WRITE_ERRORS),
  },
})

export const recoverRoute = protectedRoute('webhooks', {
  method: 'post',
  path: '/v1/webhook-endpoints/{id}/recover',
  tags,
  summary: 'Redeliver every event whose delivery failed in a time range',
  description:
    'For each event created in [`from`, `to`) whose delivery to this endpoint failed and that has not been ' +
    'delivered since (none succeeded, none in progress), a new delivery. At most 1000 per request; `hasMore` says ' +
    'to send the request again.',
  request: { params: endpointId, body: { required: true, content: json(RecoveryRequest) } },
  responses: {
    202: { description: 'How many were redelivered', content: json(RecoveryResult) },
    ...problemResponses(...WRITE_ERRORS),
  },
})
