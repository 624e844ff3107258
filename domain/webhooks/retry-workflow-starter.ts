/**
 * @module Starts and wakes failing endpoints' retry workflows on Temporal, for the delivery pumps
 * (retry-check.ts `EndpointRetryStarter`). Signal-with-start: a running workflow gets the wake signal, a closed one
 * a new run, so a start never races a workflow that is just ending.
 */
import type { Client } from '@temporalio/client'
import { TypedSearchAttributes } from '@temporalio/common'
import { searchAttributeKeys } from '../../common/search-attributes-contract.ts'
import { tenantPriority } from '../../common/tenant-priority.ts'
import {
  WAKE_ENDPOINT_RETRY_SIGNAL,
  WEBHOOK_ENDPOINT_RETRY_KIND,
  WEBHOOK_ENDPOINT_RETRY_WORKFLOW,
  endpointRetryWorkflowId,
  type EndpointRetryInput,
} from '../../common/webhooks/webhook-queue-contract.ts'
import type { EndpointRetryStarter } from './retry-check.ts'
import type { RetryPolicy } from '../../common/webhooks/retry-schedule.ts'

const CALL_DEADLINE_MS = 5000

/** Creates the starter over a Temporal client. */
export function createRetryWorkflowStarter(temporal: Client, taskQueue: string, retry: RetryPolicy) {
  const starter: EndpointRetryStarter = {
    async wake({ endpointId, tenantId }) {
      const input: EndpointRetryInput = { tenantId, endpointId, retry }
      await temporal.withDeadline(Date.now() + CALL_DEADLINE_MS, () =>
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
    async ensureRunning(endpoint) {
      // A describe costs no Temporal action; only a missing workflow is started.
      const running = await temporal
        .withDeadline(Date.now() + CALL_DEADLINE_MS, () =>
          temporal.workflow.getHandle(endpointRetryWorkflowId(endpoint.endpointId)).describe()
        )
        .then(
          (description) => description.status.name === 'RUNNING',
          () => false
        )
      if (!running) await starter.wake(endpoint)
    },
  }
  return starter
}
