/**
 * @module Agent workflows: created (from scratch or from a template), listed, read, changed by JSON merge patch and
 * deleted within the caller's tenant. Every change records the configuring principal's scopes (the ceiling of what
 * the runs may do) and bumps `version`, which the schedule sync follows (agent-schedules.ts). Each workflow holds
 * the secret that signs its `call_webhook` requests (agent-action-effects.ts), shown at creation and rotation only.
 */
import type { AgentWorkflow, Prisma } from '../../../generated/prisma/client.ts'
import type { SecretBox } from '../../../infra/secret-box.ts'
import type { UnitOfWork } from '../../../infra/unit-of-work.ts'
import type { Principal } from '../../auth/principal.ts'
import { notFound, validationError } from '../../errors.ts'
import { newId } from '../../ids.ts'
import { agentSecretAt } from '../../sealed-secrets.ts'
import { keysetOrderBy, keysetWhere, parseList, toSortedPage, type SortParam } from '../../listing.ts'
import { applyMergePatch, withoutNulls, type JsonObject } from '../../merge-patch.ts'
import { checkEnabledWorkflowQuota } from './agent-quotas.ts'
import type { AgentSchedules } from './agent-schedules.ts'
import { newWebhookSecret } from '../../webhooks/webhook-secrets.ts'
import { templateById } from './agent-workflow-templates.ts'
import type { AgentWorkflowConfig } from './agent-workflow-schema.ts'
import { checkConfig, parseConfig, type UrlRules } from './configure-agent-workflow.ts'

export type { AgentWorkflow }

export const AGENT_WORKFLOW_SORTS = ['createdAt', 'name'] as const

export interface AgentWorkflowListQuery {
  limit: number
  cursor?: string
  sort: SortParam<(typeof AGENT_WORKFLOW_SORTS)[number]>
  enabled?: boolean
  templateId?: string
}

export interface AgentWorkflowServiceDeps {
  rules: UrlRules
  schedules: Pick<AgentSchedules, 'syncPendingSchedules'>
  /** AGENT_WORKFLOWS_PER_TENANT: enabled workflows a tenant may have (agent-quotas.ts). */
  maxEnabledWorkflows: number
  /** Seals the workflows' webhook secrets at rest (infra/secret-box.ts). */
  secrets: SecretBox
}

/** A workflow as stored (its secret sealed) with the secret just issued, in clear: shown this once. */
export interface WorkflowWithSecret {
  workflow: AgentWorkflow
  webhookSecret: string
}

/** The writable fields of a row, as the merge-patch target and the API's view. */
export const configOf = (row: AgentWorkflow): AgentWorkflowConfig => ({
  name: row.name,
  ...(row.description ? { description: row.description } : {}),
  enabled: row.enabled,
  trigger: row.trigger as AgentWorkflowConfig['trigger'],
  agent: {
    assistantId: row.assistantId,
    instructions: row.instructions,
    tools: row.tools as AgentWorkflowConfig['agent']['tools'],
  },
  actions: row.actions as AgentWorkflowConfig['actions'],
})

const columnsOf = (config: AgentWorkflowConfig) => ({
  name: config.name,
  description: config.description ?? null,
  enabled: config.enabled,
  trigger: config.trigger as Prisma.InputJsonObject,
  eventTypes: config.trigger.type === 'event' ? config.trigger.eventTypes : [],
  assistantId: config.agent.assistantId,
  instructions: config.agent.instructions,
  tools: config.agent.tools,
  actions: config.actions as unknown as Prisma.InputJsonArray,
})

/** Creates the service. */
export function createAgentWorkflowService(deps: AgentWorkflowServiceDeps) {
  /** After commit: bring the Temporal schedule in line now (the sweep repairs it if this fails). */
  const syncAfterCommit = (uow: UnitOfWork, id: string) =>
    uow.afterCommit(async () => {
      await deps.schedules.syncPendingSchedules([id])
    })

  /**
   * Creates a workflow; with `templateId`, the body's fields are merged over the template's.
   * @throws AppError `validation_error`, 403 `insufficient_scope`, 409 `quota_exceeded` (an enabled one beyond the
   *   tenant's quota)
   */
  async function create(uow: UnitOfWork, principal: Principal, body: JsonObject): Promise<WorkflowWithSecret> {
    const { templateId, ...fields } = body
    let candidate: JsonObject = fields
    if (templateId !== undefined) {
      const template = typeof templateId === 'string' ? templateById(templateId) : undefined
      if (!template)
        throw validationError([
          { path: 'templateId', code: 'not_found', message: `No template ${JSON.stringify(templateId)}.` },
        ])
      const base: JsonObject = {
        name: template.name,
        description: template.description,
        trigger: template.trigger,
        agent: template.agent,
        actions: template.actions,
      }
      candidate = applyMergePatch(structuredClone(base), fields) as JsonObject
    }
    const config = parseConfig(candidate)
    const { scopes } = await checkConfig(uow, config, principal, deps.rules)
    if (config.enabled) await checkEnabledWorkflowQuota(uow, deps.maxEnabledWorkflows)
    const webhookSecret = newWebhookSecret()
    const id = newId('agentWorkflow')
    const row = await uow.tx.agentWorkflow.create({
      data: {
        id,
        tenantId: uow.tenantId,
        templateId: typeof templateId === 'string' ? templateId : null,
        ...columnsOf(config),
        creatorScopes: scopes,
        createdBy: principal.actorId,
        webhookSecret: deps.secrets.seal(webhookSecret, agentSecretAt(id)),
      },
    })
    syncAfterCommit(uow, row.id)
    return { workflow: row, webhookSecret }
  }

  /**
   * Replaces the secret that signs the workflow's `call_webhook` requests; calls made from now on carry the new one
   * only (an action retried after this signs with the new one too).
   * @throws AppError `not_found`
   */
  async function rotateSecret(uow: UnitOfWork, id: string): Promise<WorkflowWithSecret> {
    const row = await get(uow, id)
    const webhookSecret = newWebhookSecret()
    const workflow = await uow.tx.agentWorkflow.update({
      where: { id: row.id },
      data: { webhookSecret: deps.secrets.seal(webhookSecret, agentSecretAt(row.id)) },
    })
    return { workflow, webhookSecret }
  }

  /** One workflow of the unit's tenant (deleted ones are gone). @throws AppError `not_found` */
  async function get({ tx, tenantId }: UnitOfWork, id: string): Promise<AgentWorkflow> {
    const row = await tx.agentWorkflow.findFirst({ where: { id, tenantId, deletedAt: null } })
    if (!row) throw notFound('agent workflow', id)
    return row
  }

  /** A page of the tenant's workflows. */
  async function list({ tx, tenantId }: UnitOfWork, query: AgentWorkflowListQuery) {
    const page = parseList(query)
    const rows = await tx.agentWorkflow.findMany({
      where: {
        AND: [
          { tenantId, deletedAt: null },
          ...(query.enabled !== undefined ? [{ enabled: query.enabled }] : []),
          ...(query.templateId ? [{ templateId: query.templateId }] : []),
          keysetWhere(page) as Prisma.AgentWorkflowWhereInput,
        ],
      },
      orderBy: keysetOrderBy(page),
      take: page.limit + 1,
    })
    return toSortedPage(rows, page)
  }

  /**
   * Changes a workflow by JSON merge patch (`actions` and `agent.tools` replace whole). The patching principal's
   * scopes become the ceiling: whoever last configured the workflow vouches for what it does.
   * @throws AppError `not_found`, `validation_error`, 403 `insufficient_scope`, 409 `quota_exceeded` (enabling one
   *   beyond the tenant's quota)
   */
  async function patch(uow: UnitOfWork, principal: Principal, id: string, body: JsonObject): Promise<AgentWorkflow> {
    const row = await get(uow, id)
    const current = withoutNulls(configOf(row))
    const config = parseConfig(applyMergePatch(current, body) as JsonObject)
    const { scopes } = await checkConfig(uow, config, principal, deps.rules)
    if (config.enabled && !row.enabled) await checkEnabledWorkflowQuota(uow, deps.maxEnabledWorkflows)
    const updated = await uow.tx.agentWorkflow.update({
      where: { id: row.id },
      data: { ...columnsOf(config), creatorScopes: scopes, createdBy: principal.actorId, version: { increment: 1 } },
    })
    syncAfterCommit(uow, row.id)
    return updated
  }

  /** Deletes a workflow: no new runs, its schedule removed; past runs stay readable by id. @throws AppError `not_found` */
  async function remove(uow: UnitOfWork, id: string): Promise<void> {
    const row = await get(uow, id)
    await uow.tx.agentWorkflow.update({
      where: { id: row.id },
      data: { deletedAt: new Date(), enabled: false, version: { increment: 1 } },
    })
    syncAfterCommit(uow, row.id)
  }

  return { create, get, list, patch, remove, rotateSecret }
}

export type AgentWorkflowService = ReturnType<typeof createAgentWorkflowService>
