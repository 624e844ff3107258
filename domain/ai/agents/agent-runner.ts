/**
 * @module The steps of one agent run, each called by one activity of `agentRunWorkflow` and each idempotent: a step
 * recorded before is answered from its record (agent-run-store.ts). Record-changing effects are written in the same
 * transaction as their step, so a retried activity after a crash never repeats them.
 *
 * The plan (position 0) freezes the configuration for the run; every later step reads it, never the live row, so
 * a PATCH during a run cannot widen it. The assistant's tools, however, are read live at each action: taking a tool
 * away from an assistant stops the next action that needs it.
 */
import type { Db } from '../../../infra/db.ts'
import { runInUnitOfWork, type UnitOfWork } from '../../../infra/unit-of-work.ts'
import type { AgentRunInput, AgentRunResult } from '../../../common/agents/agent-run-contract.ts'
import type { AiRuntime } from '../ai-runtime.ts'
import { newId } from '../../ids.ts'
import type { WebhookPoster } from '../../webhooks/post-webhook.ts'
import { actionName, openParameters, refusalOf, type AgentAction } from './action-catalogue.ts'
import { applyEffect, postWebhookEffect, type EffectInput, type EffectOutcome } from './agent-action-effects.ts'
import type { CareStartDeps } from './agent-care-starts.ts'
import { loadAgentContext, type AgentContext } from './agent-context.ts'
import type { AgentDecider } from './agent-decider.ts'
import { acceptProposal, type Decision, type DecisionInput } from './agent-proposal.ts'
import {
  AGENT_POSITION,
  CONTEXT_POSITION,
  FIRST_ACTION_POSITION,
  PLAN_POSITION,
  recordStep,
  stepAt,
} from './agent-run-store.ts'

export interface AgentRunnerDeps {
  db: Db
  ai: AiRuntime
  decider: AgentDecider
  poster: WebhookPoster
  /** The care-workflow starter's dependencies (needs the activity's Temporal client, so built per call). */
  care: () => CareStartDeps
  now?: () => Date
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
const findPlan = async (uow: UnitOfWork, runId: string) =>
  (await stepAt(uow, runId, PLAN_POSITION))?.output as unknown as RunPlan | undefined
/** The plan of a run past its first step, which always records it. */
const planOf = async (uow: UnitOfWork, runId: string) => (await findPlan(uow, runId)) as RunPlan

/** Creates the run steps over the worker's dependencies. */
export function createAgentRunner(deps: AgentRunnerDeps) {
  const now = deps.now ?? (() => new Date())

  /** Finds (event) or creates (schedule) the run row, freezes the plan, marks the run RUNNING. */
  async function begin(input: AgentRunInput, workflowId: string): Promise<BegunRun> {
    return runInUnitOfWork(deps.db, input.tenantId, async (uow) => {
      if (!input.runId) {
        await uow.tx.agentRun.createMany({
          data: [
            {
              id: newId('agentRun'),
              tenantId: uow.tenantId,
              agentWorkflowId: input.agentWorkflowId,
              workflowId,
              triggerType: 'SCHEDULE',
              workflowStartedAt: now(),
            },
          ],
          skipDuplicates: true,
        })
      }
      const run = await uow.tx.agentRun.findFirstOrThrow({
        where: input.runId ? { id: input.runId, tenantId: uow.tenantId } : { workflowId, tenantId: uow.tenantId },
      })
      let plan = await findPlan(uow, run.id)
      if (!plan) {
        const row = await uow.tx.agentWorkflow.findFirst({
          where: { id: input.agentWorkflowId, tenantId: uow.tenantId },
        })
        if (!row || row.deletedAt || !row.enabled) {
          const reason =
            !row || row.deletedAt
              ? 'The agent workflow was deleted before the run began.'
              : 'The agent workflow is disabled.'
          await recordStep(uow, run.id, PLAN_POSITION, {
            kind: 'PLAN',
            name: 'configuration',
            status: 'SKIPPED',
            output: {},
            reason,
          })
          await uow.tx.agentRun.update({
            where: { id: run.id },
            data: { status: 'FAILED', error: reason, summary: reason, completedAt: now() },
          })
          return { runId: run.id, positions: [], skipped: reason }
        }
        plan = {
          agentWorkflowId: row.id,
          version: row.version,
          name: row.name,
          instructions: row.instructions,
          assistantId: row.assistantId,
          tools: row.tools,
          actions: row.actions as AgentAction[],
          creatorScopes: row.creatorScopes,
        }
        await recordStep(uow, run.id, PLAN_POSITION, {
          kind: 'PLAN',
          name: 'configuration',
          status: 'SUCCEEDED',
          output: { ...plan },
        })
      }
      const skipped = run.status === 'FAILED' && run.completedAt ? (run.error ?? 'skipped') : undefined
      if (!skipped)
        await uow.tx.agentRun.update({
          where: { id: run.id },
          data: { status: 'RUNNING', startedAt: run.startedAt ?? now() },
        })
      return {
        runId: run.id,
        positions: skipped ? [] : plan.actions.map((_, index) => FIRST_ACTION_POSITION + index),
        ...(skipped ? { skipped } : {}),
      }
    })
  }

  /** Loads the context within the assistant's scope and records it. */
  async function context({ tenantId, runId }: RunRef): Promise<{ inScope: boolean }> {
    return runInUnitOfWork(deps.db, tenantId, async (uow) => {
      const done = await stepAt(uow, runId, CONTEXT_POSITION)
      if (done) return { inScope: (done.output as unknown as AgentContext).inScope }
      const plan = await planOf(uow, runId)
      const run = await uow.tx.agentRun.findFirstOrThrow({ where: { id: runId, tenantId } })
      const assistant = await uow.tx.assistant.findFirst({
        where: { id: plan.assistantId, tenantId },
        select: { id: true, locationId: true, tools: true },
      })
      if (!assistant) {
        await recordStep(uow, runId, CONTEXT_POSITION, {
          kind: 'CONTEXT',
          name: 'context',
          status: 'REFUSED',
          reason: 'The assistant was deleted.',
          output: {
            trigger: run.triggerType === 'SCHEDULE' ? 'SCHEDULE' : 'EVENT',
            subject: {},
            inScope: false,
            outOfScopeReason: 'The assistant was deleted.',
            familyClientIds: [],
            facts: [],
            passages: [],
          } satisfies AgentContext,
        })
        return { inScope: false }
      }
      const loaded = await loadAgentContext(uow, deps.ai, {
        trigger: run.triggerType === 'SCHEDULE' ? 'SCHEDULE' : 'EVENT',
        ...(run.eventId ? { eventId: run.eventId } : {}),
        assistant,
        agentTools: plan.tools,
        instructions: plan.instructions,
      })
      await recordStep(uow, runId, CONTEXT_POSITION, {
        kind: 'CONTEXT',
        name: 'context',
        status: loaded.inScope ? 'SUCCEEDED' : 'REFUSED',
        output: loaded as unknown as Record<string, unknown>,
        ...(loaded.outOfScopeReason ? { reason: loaded.outOfScopeReason } : {}),
      })
      return { inScope: loaded.inScope }
    })
  }

  /** Runs the agent (offline or the configured model) over the plan and context, and records what was accepted. */
  async function decide({ tenantId, runId }: RunRef): Promise<{ ignored: number }> {
    const loaded = await runInUnitOfWork(deps.db, tenantId, async (uow) => ({
      done: await stepAt(uow, runId, AGENT_POSITION),
      plan: await planOf(uow, runId),
      context: (await stepAt(uow, runId, CONTEXT_POSITION))?.output as unknown as AgentContext,
    }))
    if (loaded.done) return { ignored: ((loaded.done.output as unknown as Partial<Decision>).ignored ?? []).length }
    const { plan, context: ctx } = loaded
    const input: DecisionInput = {
      workflowName: plan.name,
      instructions: plan.instructions,
      context: ctx,
      actions: plan.actions.map((action, index) => ({
        position: FIRST_ACTION_POSITION + index,
        name: actionName(action, index),
        type: action.type,
        open: openParameters(action),
      })),
    }
    // The model is called outside any transaction; its answer only proposes values.
    const raw = await deps.decider.propose(input)
    const allowedUrls = plan.actions.flatMap((action) => (action.type === 'call_webhook' ? [action.url] : []))
    const decision = acceptProposal(input, raw, allowedUrls)
    await runInUnitOfWork(deps.db, tenantId, (uow) =>
      recordStep(uow, runId, AGENT_POSITION, {
        kind: 'AGENT',
        name: 'agent',
        status: 'SUCCEEDED',
        output: { model: deps.decider.id, params: decision.params, ignored: decision.ignored },
      })
    )
    return { ignored: decision.ignored.length }
  }

  /** Performs one configured action if its guard rail allows it; records the step. */
  async function execute({ tenantId, runId, position }: RunRef & { position: number }): Promise<{ status: string }> {
    const loaded = await runInUnitOfWork(deps.db, tenantId, async (uow) => {
      const plan = await planOf(uow, runId)
      const assistant = await uow.tx.assistant.findFirst({
        where: { id: plan.assistantId, tenantId },
        select: { tools: true },
      })
      // The secret as it is now (a rotation applies to calls not yet made), also for a workflow deleted since.
      const workflow = await uow.tx.agentWorkflow.findFirst({
        where: { id: plan.agentWorkflowId, tenantId },
        select: { webhookSecret: true },
      })
      return {
        webhookSecret: workflow?.webhookSecret,
        done: await stepAt(uow, runId, position),
        plan,
        assistantTools: assistant?.tools ?? [],
        context: (await stepAt(uow, runId, CONTEXT_POSITION))?.output as unknown as AgentContext,
        decision: (await stepAt(uow, runId, AGENT_POSITION))?.output as unknown as Decision,
      }
    })
    if (loaded.done) return { status: loaded.done.status }
    const index = position - FIRST_ACTION_POSITION
    const action = loaded.plan.actions[index]!
    const name = actionName(action, index)
    const record = (outcome: EffectOutcome) => (uow: UnitOfWork) =>
      recordStep(uow, runId, position, { kind: 'ACTION', name, ...outcome }).then((step) => ({ status: step.status }))
    const refusal = refusalOf(action, loaded.plan.tools, loaded.assistantTools, loaded.plan.creatorScopes)
    if (refusal) {
      return runInUnitOfWork(
        deps.db,
        tenantId,
        record({ status: 'REFUSED', output: { code: refusal.code, type: action.type }, reason: refusal.message })
      )
    }
    const input: EffectInput = {
      action,
      name,
      params: loaded.decision.params[position] ?? {},
      context: loaded.context,
      agentWorkflowId: loaded.plan.agentWorkflowId,
      runId,
      key: `${runId}:${position}`,
      now: now(),
      webhookSecret: loaded.webhookSecret,
    }
    if (action.type === 'call_webhook') {
      const outcome = await postWebhookEffect(deps.poster, input)
      return runInUnitOfWork(deps.db, tenantId, record(outcome))
    }
    // The effect and its step commit together: exactly once, however often the activity is retried.
    return runInUnitOfWork(deps.db, tenantId, async (uow) => record(await applyEffect(uow, deps.care(), input))(uow))
  }

  /** Records an action whose activity gave up (retries exhausted). */
  async function recordFailure({ tenantId, runId, position, message }: RunRef & { position: number; message: string }) {
    await runInUnitOfWork(deps.db, tenantId, async (uow) => {
      const plan = await planOf(uow, runId)
      const index = position - FIRST_ACTION_POSITION
      await recordStep(uow, runId, position, {
        kind: 'ACTION',
        name: actionName(plan.actions[index]!, index),
        status: 'FAILED',
        output: {},
        reason: message.slice(0, 500),
      })
    })
  }

  /** Sets the run's outcome and summary from its steps. */
  async function complete({ tenantId, runId }: RunRef): Promise<AgentRunResult> {
    return runInUnitOfWork(deps.db, tenantId, async (uow) => {
      const run = await uow.tx.agentRun.findFirstOrThrow({
        where: { id: runId, tenantId },
        include: { steps: { orderBy: { position: 'asc' } } },
      })
      const actions = run.steps.filter((step) => step.kind === 'ACTION')
      const count = (status: string) => actions.filter((step) => step.status === status).length
      const troubled = actions.filter((step) => step.status === 'REFUSED' || step.status === 'FAILED')
      const status = troubled.length === 0 ? 'SUCCEEDED' : troubled.length === actions.length ? 'FAILED' : 'PARTIAL'
      const parts = [
        `${count('SUCCEEDED')} succeeded`,
        `${count('SKIPPED')} skipped`,
        `${count('REFUSED')} refused`,
        `${count('FAILED')} failed`,
      ]
      const summary = `${actions.length} action(s): ${parts.join(', ')}${troubled.length ? ` (${troubled.map((s) => `${s.name}: ${s.status}`).join('; ')})` : ''}.`
      if (!run.completedAt) {
        await uow.tx.agentRun.update({ where: { id: run.id }, data: { status, summary, completedAt: now() } })
      }
      return {
        runId,
        status: run.completedAt ? (run.status as AgentRunResult['status']) : status,
        summary: run.completedAt ? (run.summary ?? summary) : summary,
      }
    })
  }

  return { begin, context, decide, execute, recordFailure, complete }
}
