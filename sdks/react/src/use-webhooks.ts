/**
 * @module Webhook endpoints and their deliveries: the lists, and each change as a mutation with its own
 * Idempotency-Key (a retried click is one change). Every change refreshes the lists it touches.
 */
import { skipToken, useMutation, useQuery, useQueryClient } from '@tanstack/react-query'
import type { RequestBody } from '@therapy-care/sdk'
import { useTherapyCare } from './provider.ts'

/** The body of `POST /v1/webhook-endpoints`. */
export type WebhookEndpointInput = RequestBody<'/v1/webhook-endpoints', 'POST'>

/** The tenant's endpoints, newest first (the first page of 100). */
export function useWebhookEndpoints() {
  const { client, keys } = useTherapyCare()
  return useQuery({
    queryKey: keys.webhookEndpoints,
    queryFn: ({ signal }) => client.request('GET', '/v1/webhook-endpoints', { query: { limit: 100 }, signal }),
  })
}

/**
 * An endpoint's deliveries, newest first, each with its attempts; idle while `endpointId` is undefined.
 * @param refetchInterval - milliseconds between refreshes while a delivery is still being retried (0: never)
 * @param idleRefetchInterval - milliseconds between refreshes otherwise, to see new deliveries appear (0: never)
 */
export function useWebhookDeliveries(endpointId: string | undefined, refetchInterval = 0, idleRefetchInterval = 0) {
  const { client, keys } = useTherapyCare()
  return useQuery({
    queryKey: keys.webhookDeliveries(endpointId ?? null),
    queryFn: endpointId
      ? ({ signal }) =>
          client.request('GET', '/v1/webhook-endpoints/{id}/deliveries', {
            params: { id: endpointId },
            query: { limit: 50 },
            signal,
          })
      : skipToken,
    refetchInterval: (query) =>
      (query.state.data?.data.some((d) => d.status === 'PENDING') ? refetchInterval : idleRefetchInterval) || false,
  })
}

/** The changes to endpoints: create, rotate the secret, enable or disable, send a test event, redeliver. */
export function useWebhookEndpointActions() {
  const { client, keys, newIdempotencyKey } = useTherapyCare()
  const queryClient = useQueryClient()
  const refresh = (endpointId?: string) =>
    queryClient.invalidateQueries({
      queryKey: endpointId ? keys.webhookDeliveries(endpointId) : keys.webhookEndpoints,
    })
  const endpointsChanged = { onSuccess: () => refresh() }
  return {
    create: useMutation({
      mutationFn: (input: WebhookEndpointInput) =>
        client.request('POST', '/v1/webhook-endpoints', { body: input, idempotencyKey: newIdempotencyKey() }),
      ...endpointsChanged,
    }),
    rotateSecret: useMutation({
      mutationFn: (id: string) =>
        client.request('POST', '/v1/webhook-endpoints/{id}/rotate-secret', {
          params: { id },
          idempotencyKey: newIdempotencyKey(),
        }),
      ...endpointsChanged,
    }),
    setEnabled: useMutation({
      mutationFn: ({ id, enabled }: { id: string; enabled: boolean }) =>
        client.request('PATCH', '/v1/webhook-endpoints/{id}', {
          params: { id },
          body: { enabled },
          idempotencyKey: newIdempotencyKey(),
        }),
      ...endpointsChanged,
    }),
    sendTest: useMutation({
      mutationFn: (id: string) =>
        client.request('POST', '/v1/webhook-endpoints/{id}/test', {
          params: { id },
          idempotencyKey: newIdempotencyKey(),
        }),
      onSuccess: (_event, id) => refresh(id),
    }),
    redeliver: useMutation({
      mutationFn: ({ id, eventId }: { id: string; eventId: string }) =>
        client.request('POST', '/v1/webhook-endpoints/{id}/redeliveries', {
          params: { id },
          body: { eventId },
          idempotencyKey: newIdempotencyKey(),
        }),
      onSuccess: (_delivery, { id }) => refresh(id),
    }),
  }
}
