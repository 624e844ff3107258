/**
 * @module What the platform asks of Temporal for webhooks (the shape every domain file that calls Temporal has:
 * docs/workflows.md, "Calls into Temporal"): the delivery pump workflows started where they are not running
 * (delivery-pumps.ts keeps that up), and a failing endpoint's retry workflow woken or started for the pumps
 * (retry-check.ts `EndpointRetryStarter`). Both start with policies that make a second start harmless: a pump's
 * finds the running one (USE_EXISTING), a retry workflow's is a signal-with-start, so it never races a workflow that
 * is just ending.
 */
import type { Client } from '@temporalio/client'
import { TypedSearchAttributes } from '@temporalio/common'
import { searchAttributeKeys } from '../../common/search-attributes-contract.ts'
import { tenantPriority } from '../../common/tenant-priority.ts'
import {
  WAKE_ENDPOINT_RETRY_SIGNAL,
  WEBHOOK_ENDPOINT_RETRY_KIND,
  WEBHOOK_ENDPOINT_RETRY_WORKFLOW,
  WEBHOOK_PUMP_KIND,
  WEBHOOK_PUMP_WORKFLOW,
  deliveryPumpWorkflowId,
  endpointRetryWorkflowId,
  type DeliveryPumpInput,
  type EndpointRetryInput,
} from '../../common/webhooks/webhook-queue-contract.ts'
import type { RetryPolicy } from '../../common/webhooks/retry-schedule.ts'
import type { EndpointRetryStarter } from './retry-check.ts'

const CALL_DEADLINE_MS = 5000

export interface WebhookWorkflowCallsDeps {
  temporal: Client
  taskQueue: string
  /** The retry rules a retry workflow is started with (WEBHOOK_RETRY_*). */
  retry: RetryPolicy
}

/** Creates the calls over a Temporal client. */
export function createWebhookWorkflowCalls({ temporal, taskQueue, retry }: WebhookWorkflowCallsDeps) {
  const within = <T>(call: () => Promise<T>) => temporal.withDeadline(Date.now() + CALL_DEADLINE_MS, call)

  const calls = {
    /** Starts the pumps of partitions 0 … `partitions - 1` that are not running. */
    async startPumps(partitions: number): Promise<void> {
      for (let partition = 0; partition < partitions; partition++) {
        const input: DeliveryPumpInput = { partition }
        await within(() =>
          temporal.workflow.start(WEBHOOK_PUMP_WORKFLOW, {
            workflowId: deliveryPumpWorkflowId(taskQueue, partition),
            taskQueue,
            args: [input],
            workflowIdConflictPolicy: 'USE_EXISTING',
            typedSearchAttributes: new TypedSearchAttributes([
              { key: searchAttributeKeys.WorkflowKind, value: WEBHOOK_PUMP_KIND },
            ]),
            staticSummary: `Webhook delivery pump ${partition + 1} of ${partitions}`,
          })
        )
      }
    },

    /** Wakes the endpoint's retry workflow, starting it when it is not running. */
    async wake({ endpointId, tenantId }: { endpointId: string; tenantId: string }): Promise<void> {
      const input: EndpointRetryInput = { tenantId, endpointId, retry }
      await within(() =>
        temporal.workflow.signalWithStart(WEBHOOK_ENDPOINT_RETRY_WORKFLOW, {
          workflowId: endpointRetryWorkflowId(endpointId),
          taskQueue,
          args: [input],
          signal: WAKE_ENDPOINT_RETRY_SIGNAL,
          signalArgs: [],
          // Ids only (docs/conventions.md, health data): operators find a failing endpoint's workflow by these.
          typedSearchAttributes: new TypedSearchAttributes([
            { key: searchAttributeKeys.TenantId, value: tenantId },
            { key: searchAttributeKeys.WorkflowKind, value: WEBHOOK_ENDPOINT_RETRY_KIND },
            { key: searchAttributeKeys.WebhookEndpointId, value: endpointId },
          ]),
          staticSummary: `Retry schedule of failing webhook endpoint ${endpointId}`,
          priority: tenantPriority(tenantId),
        })
      )
    },

    /** Starts the endpoint's retry workflow unless it is running: a describe costs no Temporal action, a start does. */
    async ensureRunning(endpoint: { endpointId: string; tenantId: string }): Promise<void> {
      const running = await within(() =>
        temporal.workflow.getHandle(endpointRetryWorkflowId(endpoint.endpointId)).describe()
      ).then(
        (description) => description.status.name === 'RUNNING',
        () => false
      )
      if (!running) await calls.wake(endpoint)
    },
  } satisfies EndpointRetryStarter & Record<string, unknown>
  return calls
}

export type WebhookWorkflowCalls = ReturnType<typeof createWebhookWorkflowCalls>
