/**
 * @module Turning a request into a valid agent workflow configuration: a template merged with overrides, the schema,
 * the assistant it names (in the tenant), the agent's tools against the assistant's, every action against the
 * guard rails and the webhook URLs against the network rules. Errors name the field (`actions.1.url`).
 */
import type { UnitOfWork } from '../../../infra/unit-of-work.ts'
import { principalAllows, type Principal } from '../../auth/principal.ts'
import { ALL_SCOPES } from '../../auth/scopes.ts'
import { AppError, insufficientScope, validationError, type FieldError } from '../../errors.ts'
import { fieldErrorsOf, type JsonObject } from '../../merge-patch.ts'
import { vetEndpointUrl, type EndpointUrlRules } from '../../webhooks/endpoint-url.ts'
import { refusalOf, requirementOf } from './action-catalogue.ts'
import { AgentWorkflowFields, type AgentWorkflowConfig } from './agent-workflow-schema.ts'

export type UrlRules = EndpointUrlRules

/**
 * The scopes a principal effectively holds, as a list: a client's or user's scopes, or for an API key the scopes
 * its resource-and-method permissions allow (read scopes by GET, others by POST). Captured when a workflow is
 * configured, because runs happen later without anyone's token.
 */
export const effectiveScopes = (principal: Principal): string[] =>
  ALL_SCOPES.filter((scope) => principalAllows(principal, scope, scope.endsWith('.read') ? 'GET' : 'POST'))

/** Validates the whole configuration against the schema. @throws AppError `validation_error` */
export function parseConfig(candidate: JsonObject): AgentWorkflowConfig {
  const parsed = AgentWorkflowFields.safeParse(candidate)
  if (!parsed.success) throw validationError(fieldErrorsOf(parsed.error))
  return parsed.data
}

/**
 * Checks a parsed configuration against the tenant's records and the configuring principal.
 * @returns the assistant's location scope and the scopes to capture
 * @throws AppError `validation_error` (assistant missing, a tool not on the assistant, an action's tool not on the
 * agent, a URL the network rules refuse), 403 `insufficient_scope` (an action needs a scope the caller lacks)
 */
export async function checkConfig(
  uow: UnitOfWork,
  config: AgentWorkflowConfig,
  principal: Principal,
  rules: UrlRules
): Promise<{ scopes: string[] }> {
  const assistant = await uow.tx.assistant.findFirst({
    where: { id: config.agent.assistantId, tenantId: uow.tenantId },
    select: { tools: true },
  })
  if (!assistant) {
    throw validationError([
      { path: 'agent.assistantId', code: 'not_found', message: `No assistant with id "${config.agent.assistantId}".` },
    ])
  }
  const errors: FieldError[] = []
  for (const [index, tool] of config.agent.tools.entries()) {
    if (!assistant.tools.includes(tool)) {
      errors.push({
        path: `agent.tools.${index}`,
        code: 'not_on_assistant',
        message: `The assistant does not have the "${tool}" tool.`,
      })
    }
  }
  const scopes = effectiveScopes(principal)
  const missingScopes: string[] = []
  for (const [index, action] of config.actions.entries()) {
    const refusal = refusalOf(action, config.agent.tools, assistant.tools, scopes)
    if (refusal?.code === 'tool_not_allowed') {
      errors.push({ path: `actions.${index}.type`, code: 'tool_not_allowed', message: refusal.message })
    } else if (refusal?.code === 'insufficient_scope') {
      missingScopes.push(requirementOf(action).scope)
    }
    if (action.type === 'call_webhook') {
      try {
        action.url = await vetEndpointUrl(action.url, rules)
      } catch (error) {
        if (!(error instanceof AppError) || !error.errors) throw error
        errors.push(...error.errors.map((e) => ({ ...e, path: `actions.${index}.${e.path}` })))
      }
    }
  }
  if (errors.length > 0) throw validationError(errors)
  if (missingScopes.length > 0) {
    const needed = [...new Set(missingScopes)].join(' ')
    throw insufficientScope(
      needed,
      `These actions need scopes you do not hold: ${needed}. A workflow can never act beyond whoever configures it.`
    )
  }
  return { scopes }
}
