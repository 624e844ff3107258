/**
 * @module What the steps of one agent run share. Each step is called by one activity of `agentRunWorkflow` and is
 * idempotent: a step recorded before is answered from its record (agent-run-store.ts). Record-changing effects are
 * written in the same transaction as their step, so a retried activity after a crash never repeats them. The steps are
 * one function per file, given their dependencies ({@link AgentRunnerDeps}) first, as the appointments' changes are:
 * begin-agent-run.ts, record-run-context.ts, decide-agent-run.ts, execute-agent-action.ts, complete-agent-run.ts;
 * agent-runner.ts composes them for the activities.
 *
 * The plan (position 0) freezes the configuration for the run; every later step reads it, never the live row, so
 * a PATCH during a run cannot widen it. The assistant's tools, however, are read live at each action: taking a tool
 * away from an assistant stops the next action that needs it.
 */
import type { Db } from '../../../infra/db.ts'
import type { SecretBox } from '../../../infra/secret-box.ts'
import type { UnitOfWork } from '../../../infra/unit-of-work.ts'
import type { AiRuntime } from '../ai-runtime.ts'
import type { WebhookPoster } from '../../webhooks/post-webhook.ts'
import type { AgentAction } from './action-catalogue.ts'
import type { CareStartDeps } from './agent-care-starts.ts'
import type { AgentDecider } from './agent-decider.ts'
import { PLAN_POSITION, stepAt } from './agent-run-store.ts'

export interface AgentRunnerDeps {
  db: Db
  ai: AiRuntime
  decider: AgentDecider
  poster: WebhookPoster
  /** Opens the workflow's webhook secret, stored sealed, to sign a `call_webhook` request. */
  secrets: SecretBox
  /** The care-workflow starter's dependencies (needs the activity's Temporal client, so built per call). */
  care: () => CareStartDeps
  now?: () => Date
  /** AGENT_RUNS_PER_TENANT_PER_HOUR, for scheduled runs (the dispatcher keeps event runs to it); undefined: none. */
  runsPerTenantPerHour?: number
}

/** The configuration a run uses, frozen in its plan step. */
export interface RunPlan {
  agentWorkflowId: string
  version: number
  name: string
  instructions: string
  assistantId: string
  tools: string[]
  actions: AgentAction[]
  creatorScopes: string[]
}

export interface RunRef {
  tenantId: string
  runId: string
}

export interface BegunRun {
  runId: string
  /** Action positions in order; empty when the run was skipped. */
  positions: number[]
  skipped?: string
}

/** The run's frozen plan, if its first step has recorded it yet. */
export const findPlan = async (uow: UnitOfWork, runId: string) =>
  (await stepAt(uow, runId, PLAN_POSITION))?.output as unknown as RunPlan | undefined
/** The plan of a run past its first step, which always records it. */
export const planOf = async (uow: UnitOfWork, runId: string) => (await findPlan(uow, runId)) as RunPlan

/** The clock the steps stamp their records with. */
export const clockOf = (deps: Pick<AgentRunnerDeps, 'now'>) => deps.now ?? (() => new Date())
