/**
 * @module An assistant's tools as LangChain tools, for the agents that run an assistant with its instructions:
 * only the tools the assistant has AND the caller may use (tool-access.ts) are handed out, each bound to the
 * caller's unit of work, so a tool can reach nothing outside the tenant, the assistant's scope or the caller's
 * scopes. Today: `knowledge_search`. Record tools (bookings, child_records, assessments, sessions, providers) are
 * built by the agent workflows on the same gate and data scope (`authorizeToolUse`, `scopeWhere`).
 */
import { tool, type StructuredToolInterface } from '@langchain/core/tools'
import { z } from 'zod'
import type { UnitOfWork } from '../../../infra/unit-of-work.ts'
import type { Principal } from '../../auth/principal.ts'
import { AppError } from '../../errors.ts'
import type { AiRuntime } from '../ai-runtime.ts'
import { retrievePassages } from '../knowledge/query-knowledge.ts'
import type { Assistant } from './assistant-service.ts'
import { authorizeToolUse } from './tool-access.ts'
import type { ToolName } from './tool-catalogue.ts'

export interface ToolkitContext {
  uow: UnitOfWork
  runtime: AiRuntime
  assistant: Assistant
  principal: Principal
}

/** Whether the caller may have the assistant use a tool (the gate's answer without the error). */
function allowed(context: ToolkitContext, name: ToolName): boolean {
  try {
    authorizeToolUse(context.assistant, name, context.principal)
    return true
  } catch (error) {
    if (error instanceof AppError && error.status === 403) return false
    throw error
  }
}

/** `knowledge_search`: the assistant's passages for a query, with where each comes from. */
function knowledgeSearch(context: ToolkitContext): StructuredToolInterface {
  return tool(
    async ({ query }: { query: string }) => {
      // Checked again at call time: the toolkit may outlive a change of the assistant's tools within the unit.
      authorizeToolUse(context.assistant, 'knowledge', context.principal)
      const { passages } = await retrievePassages(context.uow, context.runtime, context.assistant.id, query, 5)
      return JSON.stringify(
        passages.map((p) => ({
          document: p.documentName,
          page: p.page,
          heading: p.headingPath.join(' > '),
          score: Number(p.score.toFixed(3)),
          text: p.content,
        }))
      )
    },
    {
      name: 'knowledge_search',
      description:
        "Searches the centre's uploaded policies, schedules and programme descriptions; returns quoted passages.",
      schema: z.object({ query: z.string().min(1).max(1000).describe('What to look for') }),
    }
  )
}

/**
 * The tools an assistant may use for this caller.
 * @returns LangChain tools, to bind to a chat model or call directly
 */
export function assistantToolkit(context: ToolkitContext): StructuredToolInterface[] {
  return allowed(context, 'knowledge') ? [knowledgeSearch(context)] : []
}
