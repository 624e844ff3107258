/**
 * @module What each action does, once its guard rail passed. Every effect is keyed by `<run id>:<position>`: the
 * staff task and the family message have it as a unique dedupe key (a retried activity finds the first row), the
 * webhook call sends it as `Idempotency-Key` and `webhook-id` (a receiver sees the same key if a crash makes the
 * call repeat: delivery is at least once, as for every webhook). The webhook call is signed as webhook deliveries are
 * (domain/webhooks/sign-delivery.ts), with the agent workflow's own secret, both ways at once: v1
 * `X-Service-Signature` and v2 Standard Webhooks headers, so a receiver verifies it with the verifier it already uses
 * (the SDK's `verifyWebhook`) and can tell it from a forgery. A draft appointment is only a proposal recorded in
 * the step: nothing is booked (booking stays a person's act through `POST /v1/appointments`).
 */
import type { AgentRunStepStatus } from '../../../generated/prisma/enums.ts'
import type { UnitOfWork } from '../../../infra/unit-of-work.ts'
import { newId } from '../../ids.ts'
import type { WebhookPoster } from '../../webhooks/post-webhook.ts'
import { signatureHeaders } from '../../webhooks/sign-delivery.ts'
import type { AgentAction } from './action-catalogue.ts'
import { startCareWorkflow, type CareStartDeps } from './agent-care-starts.ts'
import type { AgentContext } from './agent-context.ts'
import { DAY_MS } from '../../../common/time/calendar.ts'

export interface EffectInput {
  action: AgentAction
  name: string
  /** The accepted parameters of the agent step (only the open ones). */
  params: Record<string, string>
  context: AgentContext
  agentWorkflowId: string
  runId: string
  /** `<run id>:<position>`. */
  key: string
  now: Date
  /** The agent workflow's secret (`whsec_...`), which signs a `call_webhook` request. */
  webhookSecret?: string
}

export interface EffectOutcome {
  status: AgentRunStepStatus
  output: Record<string, unknown>
  reason?: string
}

/** A webhook call that may succeed if tried again (no answer, 429, 5xx): the activity throws it to be retried. */
export class RetryableEffectError extends Error {}

const param = (input: EffectInput, key: string) =>
  ((input.action as Record<string, unknown>)[key] as string | undefined) ?? input.params[key] ?? ''

/** Actions that write records about the run's child need the child inside the assistant's scope. */
const needsScope = (action: AgentAction) => action.type !== 'call_webhook'

/**
 * Calls the configured webhook (no transaction is held open across the HTTP call).
 * @throws RetryableEffectError when no answer came, or 429 or 5xx
 */
export async function postWebhookEffect(poster: WebhookPoster, input: EffectInput): Promise<EffectOutcome> {
  const { action, context, key } = input
  const subject = context.subject
  if (action.type !== 'call_webhook') throw new Error(`not a webhook action: ${action.type}`)
  const body = JSON.stringify({
    id: key,
    type: 'agent_run.action',
    createdAt: input.now.toISOString(),
    data: {
      agentWorkflowId: input.agentWorkflowId,
      runId: input.runId,
      action: input.name,
      summary: param(input, 'summary'),
      event: context.event ? { id: context.event.id, type: context.event.type } : null,
      subject,
    },
  })
  // Signed at each attempt with a fresh timestamp, as deliveries are, so a retry is not refused as stale.
  const content = { eventId: key, timestamp: Math.floor(input.now.getTime() / 1000), body }
  const secrets = input.webhookSecret ? [input.webhookSecret] : []
  const signatures =
    secrets.length > 0
      ? {
          ...signatureHeaders({ scheme: 'v1', secrets, signingKeys: [] }, content),
          ...signatureHeaders({ scheme: 'v2', secrets, signingKeys: [] }, content),
        }
      : {}
  const result = await poster.post(action.url, { 'Idempotency-Key': key, 'webhook-id': key, ...signatures }, body)
  const output = { url: action.url, statusCode: result.statusCode ?? null, latencyMs: result.latencyMs }
  if (result.statusCode !== undefined && result.statusCode >= 200 && result.statusCode < 300)
    return { status: 'SUCCEEDED', output }
  const retryable = result.statusCode === undefined || result.statusCode === 429 || result.statusCode >= 500
  if (retryable) throw new RetryableEffectError(result.error ?? `receiver answered ${result.statusCode}`)
  return { status: 'FAILED', output, reason: `The receiver answered ${result.statusCode}.` }
}

/** Applies one record-changing action in the unit of work. */
export async function applyEffect(uow: UnitOfWork, care: CareStartDeps, input: EffectInput): Promise<EffectOutcome> {
  const { action, context, key } = input
  const subject = context.subject
  if (needsScope(action) && !context.inScope) {
    return {
      status: 'REFUSED',
      output: { code: 'out_of_scope' },
      reason: context.outOfScopeReason ?? 'Outside the assistant scope.',
    }
  }
  switch (action.type) {
    case 'call_webhook':
      throw new Error('webhook calls are made by postWebhookEffect, outside any transaction')
    case 'create_staff_task': {
      await uow.tx.staffTask.createMany({
        data: [
          {
            id: newId('staffTask'),
            tenantId: uow.tenantId,
            title: param(input, 'title'),
            description: param(input, 'description') || null,
            childId: subject.childId ?? null,
            locationId: subject.locationId ?? null,
            dueAt: action.dueInHours ? new Date(input.now.getTime() + action.dueInHours * 3_600_000) : null,
            agentRunId: input.runId,
            dedupeKey: key,
          },
        ],
        skipDuplicates: true,
      })
      const task = await uow.tx.staffTask.findUniqueOrThrow({
        where: { tenantId_dedupeKey: { tenantId: uow.tenantId, dedupeKey: key } },
      })
      return { status: 'SUCCEEDED', output: { staffTaskId: task.id } }
    }
    case 'message_family': {
      if (!subject.childId)
        return { status: 'SKIPPED', output: {}, reason: 'The run has no child to write to the family of.' }
      if (context.familyClientIds.length === 0)
        return { status: 'SKIPPED', output: {}, reason: 'The child has no family contact on record.' }
      await uow.tx.familyMessage.createMany({
        data: [
          {
            id: newId('familyMessage'),
            tenantId: uow.tenantId,
            childId: subject.childId,
            recipientClientIds: context.familyClientIds,
            subject: param(input, 'subject'),
            body: param(input, 'body'),
            agentRunId: input.runId,
            dedupeKey: key,
          },
        ],
        skipDuplicates: true,
      })
      const message = await uow.tx.familyMessage.findUniqueOrThrow({
        where: { tenantId_dedupeKey: { tenantId: uow.tenantId, dedupeKey: key } },
      })
      return {
        status: 'SUCCEEDED',
        output: { familyMessageId: message.id, recipientClientIds: message.recipientClientIds },
      }
    }
    case 'draft_appointment': {
      if (!subject.childId)
        return { status: 'SKIPPED', output: {}, reason: 'The run has no child to propose an appointment for.' }
      const draft = {
        status: 'PROPOSED',
        childId: subject.childId,
        providerId: subject.providerId ?? null,
        locationId: subject.locationId ?? null,
        durationMinutes: action.durationMinutes,
        earliest: new Date(input.now.getTime() + DAY_MS).toISOString(),
        latest: new Date(input.now.getTime() + action.withinDays * DAY_MS).toISOString(),
        note: param(input, 'note'),
        book: 'POST /v1/appointments',
      }
      return { status: 'SUCCEEDED', output: { draft } }
    }
    case 'start_care_workflow': {
      const started = await startCareWorkflow(uow, care, action.workflow, subject)
      if (started.outcome === 'SKIPPED') return { status: 'SKIPPED', output: {}, reason: started.reason }
      return { status: 'SUCCEEDED', output: started }
    }
  }
}
