/**
 * @module The writable fields of an assistant, one schema for create and (through a merge patch) update, so a PATCH
 * can never leave an assistant a POST would have refused.
 */
import { z } from '@hono/zod-openapi'
import { ASSISTANT_SCOPE_PATTERN } from './assistant-scope.ts'
import { DEFAULT_TOOLS, TOOL_NAMES } from './tool-catalogue.ts'

export const AssistantFields = z.strictObject({
  name: z.string().trim().min(1).max(100).openapi({ example: 'Front desk helper' }),
  scope: z.string().regex(ASSISTANT_SCOPE_PATTERN, 'Must be "tenant" or "location:<location id>"').openapi({
    example: 'location:loc_019a6b2f0c7e4d2a9b1c3e5f7a9b0c1d',
    description: 'The centre data the assistant may see: `tenant` (every location) or `location:<loc_id>` (one).',
  }),
  tools: z
    .array(z.enum(TOOL_NAMES))
    .max(TOOL_NAMES.length)
    .refine((tools) => new Set(tools).size === tools.length, {
      message: 'Each tool at most once',
      params: { code: 'duplicate' },
    })
    .default(DEFAULT_TOOLS)
    .openapi({ description: `Tools the assistant may use: ${TOOL_NAMES.join(', ')}. Default: knowledge.` }),
  instructions: z.string().trim().min(1).max(8000).optional().openapi({
    description: 'How the assistant should behave, for the agents that use it (never widens its tools or scope).',
  }),
  description: z.string().trim().min(1).max(500).optional(),
})

export type AssistantFieldsInput = z.input<typeof AssistantFields>
export type AssistantFieldsOutput = z.output<typeof AssistantFields>
