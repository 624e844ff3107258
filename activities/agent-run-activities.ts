/**
 * @module Activities of the agent run workflow: thin wrappers over domain/ai/agents/agent-runner.ts. The agent
 * is the offline drafter unless a chat model is injected (docs/agents.md); webhook calls go through the webhook
 * poster, so they obey the same network rules as webhook deliveries (no private or metadata addresses unless the
 * operator allows them), and care workflows are started through the workflow outbox with this activity's client.
 */
import { ApplicationFailure, Context } from '@temporalio/activity'
import type { AiRuntime } from '../domain/ai/ai-runtime.ts'
import { RetryableEffectError } from '../domain/ai/agents/agent-action-effects.ts'
import { offlineDecider, type AgentDecider } from '../domain/ai/agents/agent-decider.ts'
import type { RunRef } from '../domain/ai/agents/agent-run-plan.ts'
import { createAgentRunner } from '../domain/ai/agents/agent-runner.ts'
import { createWebhookPoster } from '../adapters/webhook-http/webhook-poster.ts'
import type { WebhookPoster } from '../domain/webhooks/post-webhook.ts'
import type { WebhookSettings } from '../domain/webhooks/webhook-settings.ts'
import { createWorkflowOutbox } from '../domain/workflow-runs/workflow-outbox.ts'
import type { Db } from '../infra/db.ts'
import { createLogger, type Logger } from '../infra/logger.ts'
import type { SecretBox } from '../infra/secret-box.ts'
import type { AgentRunActivities, AgentRunInput, AgentRunResult } from '../common/agents/agent-run-contract.ts'

export interface AgentRunActivityDeps {
  db: Db
  webhooks: WebhookSettings
  /** Opens the agent workflows' sealed webhook secrets (infra/secret-box.ts). */
  secrets: SecretBox
  ai: AiRuntime
  /** A configured chat model's agent; the offline drafter otherwise. */
  agentDecider?: AgentDecider
  poster?: WebhookPoster
  logger?: Logger
  /** CARE_WORKFLOW_DAY_MS and CHILD_PROGRESS_INTERVAL_DAYS, for care workflows an agent starts. */
  care?: { dayMs?: number; progressIntervalDays?: number }
  /** AGENT_RUNS_PER_TENANT_PER_HOUR, which a scheduled run beyond is skipped by (domain/ai/agents/agent-quotas.ts). */
  agentRunsPerHour?: number
}

/** Creates the agent run activities: the interface the agent run workflow proxies (its contract). */
export function createAgentRunActivities(deps: AgentRunActivityDeps): AgentRunActivities {
  const poster =
    deps.poster ??
    createWebhookPoster({
      timeoutMs: deps.webhooks.timeoutMs,
      network: deps.webhooks.network,
      userAgent: 'TherapyCare-Agents/1.0',
    })
  const logger = deps.logger ?? createLogger('info', 'agent-runs')
  const runner = createAgentRunner({
    db: deps.db,
    ai: deps.ai,
    decider: deps.agentDecider ?? offlineDecider,
    poster,
    secrets: deps.secrets,
    runsPerTenantPerHour: deps.agentRunsPerHour,
    care: () => {
      const { client, info } = Context.current()
      return {
        outbox: createWorkflowOutbox({ db: deps.db, temporal: client, taskQueue: info.taskQueue, logger }),
        temporal: client,
        logger,
        taskQueue: info.taskQueue,
        ...deps.care,
      }
    },
  })
  return {
    /** Finds or creates the run, freezes its plan. */
    async beginAgentRun(input: AgentRunInput) {
      // Always set for an activity of a workflow; a scheduled run's row is keyed by it.
      const workflowId = Context.current().info.workflowExecution?.workflowId
      if (!workflowId) throw ApplicationFailure.nonRetryable('beginAgentRun runs only inside agentRunWorkflow')
      return runner.begin(input, workflowId)
    },
    /** Loads and records the run's context. */
    async loadAgentRunContext(ref: RunRef) {
      return runner.context(ref)
    },
    /** The agent step. */
    async decideAgentRun(ref: RunRef) {
      return runner.decide(ref)
    },
    /** One action; a receiver that may recover is retried by Temporal, anything else is recorded as the step. */
    async executeAgentAction(ref: RunRef & { position: number }) {
      try {
        return await runner.execute(ref)
      } catch (error) {
        if (error instanceof RetryableEffectError) throw ApplicationFailure.retryable(error.message, 'RetryableEffect')
        throw error
      }
    },
    /** An action whose retries ran out. */
    async recordAgentActionFailure(input: RunRef & { position: number; message: string }) {
      return runner.recordFailure(input)
    },
    /** The run's outcome. */
    async completeAgentRun(ref: RunRef): Promise<AgentRunResult> {
      return runner.complete(ref)
    },
  }
}
