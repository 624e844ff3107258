/**
 * @module The earlier design's cost, measured with the same instruments: a sample of deliveries each made by its own
 * `webhookDeliveryWorkflow`, the workflow of the one-workflow-per-delivery design that the worker still runs for the
 * migration (docs/webhooks.md, "Migration"). The deliveries are written as the earlier dispatcher wrote them (marked
 * started, so the pumps leave them alone), each workflow is started as it started them, and their histories are
 * counted like the pumps'.
 */
import type { RunningApi } from '../api/start-api.ts'
import { newId } from '../domain/ids.ts'
import type { RetryPolicy } from '../common/webhooks/retry-schedule.ts'
import { runInUnitOfWork } from '../infra/unit-of-work.ts'
import {
  WEBHOOK_DELIVERY_WORKFLOW,
  eventDeliveryWorkflowId,
  type WebhookDeliveryInput,
} from '../common/webhooks/webhook-delivery-contract.ts'
import { actionsBetween, emptyActions, historyActions, serverActions } from './temporal-actions.ts'
import { newTenant, subscribe, waitDelivered } from './webhook-bench-kit.ts'
import { deliveryKey, type Peer } from './webhook-peer-client.ts'
import type { BeforeResult } from './webhook-results.ts'

const SAMPLE = Number(process.env.BENCH_BEFORE_DELIVERIES ?? 50)

export async function measureBefore(options: {
  api: RunningApi
  peer: Peer
  taskQueue: string
  namespace: string
  metricsUrl?: string
  retry: RetryPolicy
}): Promise<BeforeResult> {
  const { api, peer, taskQueue, metricsUrl, namespace } = options
  const tenant = await newTenant(api)
  await subscribe(api, peer, tenant, 1)
  const endpoint = tenant.endpoints[0]!
  const deliveries: Array<{ eventId: string; input: WebhookDeliveryInput; workflowId: string }> = []
  for (let i = 0; i < SAMPLE; i++) {
    const now = new Date()
    const eventId = newId('event')
    const deliveryId = newId('webhookDelivery')
    const workflowId = eventDeliveryWorkflowId(eventId, endpoint.id)
    await runInUnitOfWork(api.deps.db, tenant.tenantId, async ({ tx }) => {
      // Fanned out already and its delivery marked started: what the earlier dispatcher left for its workflow.
      await tx.event.create({
        data: {
          id: eventId,
          tenantId: tenant.tenantId,
          type: 'child.registered',
          data: { childId: newId('child'), locationId: null },
          createdAt: now,
          fannedOutAt: now,
        },
      })
      await tx.webhookDelivery.create({
        data: {
          id: deliveryId,
          tenantId: tenant.tenantId,
          eventId,
          endpointId: endpoint.id,
          eventType: 'child.registered',
          kind: 'EVENT',
          workflowId,
          workflowStartedAt: now,
          nextAttemptAt: now,
        },
      })
    })
    deliveries.push({ eventId, workflowId, input: { tenantId: tenant.tenantId, deliveryId, retry: options.retry } })
  }
  const client = api.deps.temporal
  const countersBefore = metricsUrl ? await serverActions(metricsUrl, namespace).catch(() => undefined) : undefined
  const from = Date.now()
  const handles = []
  for (const delivery of deliveries) {
    handles.push(
      await client.workflow.start(WEBHOOK_DELIVERY_WORKFLOW, {
        workflowId: delivery.workflowId,
        taskQueue,
        args: [delivery.input],
      })
    )
  }
  await Promise.all(handles.map((handle) => handle.result()))
  const to = Date.now()
  await waitDelivered(
    peer,
    deliveries.map((d) => d.eventId),
    [endpoint.path],
    10_000
  )
  const byType = await historyActions(client, {
    query: `TaskQueue = "${taskQueue}" AND WorkflowType = "${WEBHOOK_DELIVERY_WORKFLOW}"`,
    from,
    to,
  })
  // The server's counter is published a few seconds late, and this sample's actions all came at the end.
  if (metricsUrl) await new Promise((resolve) => setTimeout(resolve, 10_000))
  const countersAfter = metricsUrl ? await serverActions(metricsUrl, namespace).catch(() => undefined) : undefined
  return {
    deliveries: deliveries.length,
    delivered: deliveries.filter((d) => peer.delivered.has(deliveryKey(d.eventId, endpoint.path))).length,
    actions: byType.get(WEBHOOK_DELIVERY_WORKFLOW) ?? emptyActions(),
    serverActions: countersBefore && countersAfter ? actionsBetween(countersBefore, countersAfter) : undefined,
  }
}
