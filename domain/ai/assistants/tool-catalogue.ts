/**
 * @module The tools an assistant can be given, and the scope a caller must hold for the assistant to use each on
 * its behalf. An assistant never acts with more than its caller could: using a tool needs the tool on the assistant
 * AND the tool's scope on the caller (docs/ai.md). Reading and writing are separate scopes, as for the API itself.
 */
import type { Scope } from '../../auth/scopes.ts'

export interface ToolDefinition {
  description: string
  /** The caller's scope for reading through the tool. */
  readScope: Scope
  /** The caller's scope for changing records through the tool; absent for read-only tools. */
  writeScope?: Scope
}

export const TOOL_CATALOGUE = {
  knowledge: {
    description: "Search the assistant's uploaded knowledge (policies, schedules, programme descriptions) and quote it",
    readScope: 'ai.read',
  },
  bookings: {
    description: 'Appointments and availability within the assistant scope',
    readScope: 'bookings.read',
    writeScope: 'bookings',
  },
  child_records: {
    description: 'Children and their goals within the assistant scope',
    readScope: 'children.read',
    writeScope: 'children',
  },
  assessments: {
    description: 'Assessments and re-assessment due dates within the assistant scope',
    readScope: 'assessments.read',
    writeScope: 'assessments',
  },
  sessions: {
    description: 'Sessions and SOAP notes within the assistant scope',
    readScope: 'sessions.read',
    writeScope: 'sessions',
  },
  providers: {
    description: 'Providers (therapists), their disciplines and hours within the assistant scope',
    readScope: 'providers.read',
  },
} as const satisfies Record<string, ToolDefinition>

export type ToolName = keyof typeof TOOL_CATALOGUE
export const TOOL_NAMES = Object.keys(TOOL_CATALOGUE) as [ToolName, ...ToolName[]]

/** An assistant created without `tools` can search its knowledge and nothing else. */
export const DEFAULT_TOOLS: ToolName[] = ['knowledge']
