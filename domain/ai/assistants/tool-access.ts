/**
 * @module The one gate every tool use passes: the tool must be one of the assistant's, the caller must hold the
 * tool's scope for the access wanted, and what the tool may then see is the assistant's data scope within the
 * caller's tenant. The knowledge query uses it today; agent workflows use the same gate for their tools, so a
 * prompt-injected document cannot talk an assistant into a tool it was not given or a caller does not hold.
 */
import { principalAllows, type Principal } from '../../auth/principal.ts'
import { forbidden, insufficientScope } from '../../errors.ts'
import { dataScopeOf, type AssistantDataScope } from './assistant-scope.ts'
import { TOOL_CATALOGUE, type ToolDefinition, type ToolName } from './tool-catalogue.ts'

export type ToolAccess = 'read' | 'write'

/** 403 for a tool the assistant was not given (or a write through a read-only tool). */
export const toolNotAllowed = (tool: string, detail?: string) =>
  forbidden(
    detail ?? `This assistant is not allowed the "${tool}" tool; add it to the assistant's tools first.`,
    'Tool not allowed'
  )

/**
 * Authorises one use of a tool by an assistant on behalf of a caller.
 * @param assistant - the assistant (its tools, tenant and location scope)
 * @param principal - the caller whose request the assistant serves
 * @returns the data scope the tool must keep to
 * @throws AppError 403 `forbidden` (tool not on the assistant) or `insufficient_scope` (caller lacks the scope)
 */
export function authorizeToolUse(
  assistant: { tenantId: string; locationId: string | null; tools: readonly string[] },
  tool: ToolName,
  principal: Principal,
  access: ToolAccess = 'read'
): AssistantDataScope {
  // Row-level security already hides other tenants' assistants; this keeps the gate sound on its own.
  if (assistant.tenantId !== principal.tenantId) throw toolNotAllowed(tool, 'This assistant belongs to another tenant.')
  if (!assistant.tools.includes(tool)) throw toolNotAllowed(tool)
  const definition: ToolDefinition = TOOL_CATALOGUE[tool]
  const scope = access === 'read' ? definition.readScope : definition.writeScope
  if (!scope) throw toolNotAllowed(tool, `The "${tool}" tool only reads; it cannot change records.`)
  // GET for reads and POST for writes: an API key's resource-and-method permissions are checked like a request.
  if (!principalAllows(principal, scope, access === 'read' ? 'GET' : 'POST')) throw insufficientScope(scope)
  return dataScopeOf(assistant)
}
