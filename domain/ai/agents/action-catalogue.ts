/**
 * @module The actions an agent workflow may take, what each needs, and which of its parameters the agent may fill.
 *
 * The guard rails live here as data (docs/agents.md): every action names the assistant tool it needs (an agent acts
 * through its assistant, so a tool the assistant lacks is an action it cannot take) and the scope the person who
 * configured the workflow must hold. Targets — the webhook URL, the care workflow, the record the action is about —
 * come only from the configuration and the triggering event; the agent (the model) fills only the `fillable` text
 * parameters, and only those the configuration left open.
 */
import { z } from '@hono/zod-openapi'
import { satisfiesScope, type Scope } from '../../auth/scopes.ts'
import { ASSESSMENT_REMINDER_KIND } from '../../../common/assessments/assessment-reminder-contract.ts'
import { CHILD_PROGRESS_KIND } from '../../../common/child-progress/child-progress-contract.ts'
import { EARLY_INTERVENTION_KIND } from '../../../common/early-intervention/early-intervention-contract.ts'
import type { ToolName } from '../assistants/tool-catalogue.ts'

export const ACTION_TYPES = [
  'call_webhook',
  'create_staff_task',
  'message_family',
  'draft_appointment',
  'start_care_workflow',
] as const
export type ActionType = (typeof ACTION_TYPES)[number]

/** The care workflows an agent may start (domain/children/child-care-workflows.ts, domain/assessments/assessment-workflow-calls.ts). */
export const CARE_WORKFLOW_KINDS = [ASSESSMENT_REMINDER_KIND, CHILD_PROGRESS_KIND, EARLY_INTERVENTION_KIND] as const
export type CareWorkflowToStart = (typeof CARE_WORKFLOW_KINDS)[number]

const name = z
  .string()
  .regex(/^[a-z0-9][a-z0-9_-]{0,39}$/, 'Lowercase letters, digits, "-" and "_", at most 40')
  .optional()
  .openapi({ description: 'A name for the action, unique in the workflow (shown in run steps). Default: its type.' })
const text = (max: number, description: string) => z.string().trim().min(1).max(max).optional().openapi({ description })

const CallWebhook = z.strictObject({
  type: z.literal('call_webhook'),
  name,
  url: z.string().max(2048).openapi({
    description: 'Where to POST the run’s result. Checked like a webhook endpoint (HTTPS, no private addresses).',
  }),
  summary: text(500, 'The `summary` sent; left out, the agent writes it.'),
})
const CreateStaffTask = z.strictObject({
  type: z.literal('create_staff_task'),
  name,
  title: text(200, 'The task title; left out, the agent writes it.'),
  description: text(4000, 'The task description; left out, the agent writes it.'),
  dueInHours: z
    .number()
    .int()
    .min(1)
    .max(24 * 60)
    .optional()
    .openapi({ description: 'Due this many hours after the run.' }),
})
const MessageFamily = z.strictObject({
  type: z.literal('message_family'),
  name,
  subject: text(200, 'The subject; left out, the agent writes it.'),
  body: text(4000, 'The message; left out, the agent writes it.'),
})
const DraftAppointment = z.strictObject({
  type: z.literal('draft_appointment'),
  name,
  withinDays: z
    .number()
    .int()
    .min(1)
    .max(90)
    .default(14)
    .openapi({ description: 'Propose a time within this many days.' }),
  durationMinutes: z.number().int().min(15).max(240).default(45),
  note: text(1000, 'A note for the front desk; left out, the agent writes it.'),
})
const StartCareWorkflow = z.strictObject({
  type: z.literal('start_care_workflow'),
  name,
  workflow: z
    .enum(CARE_WORKFLOW_KINDS)
    .openapi({ description: 'Which care workflow to start for the event’s record.' }),
})

export const AgentActionSchema = z
  .discriminatedUnion('type', [CallWebhook, CreateStaffTask, MessageFamily, DraftAppointment, StartCareWorkflow])
  .openapi('AgentAction')
export type AgentAction = z.output<typeof AgentActionSchema>

/** What an action needs: a tool on the agent (and its assistant) and a scope of the person who configured it. */
export interface ActionRequirement {
  tool?: ToolName
  scope: Scope
}

/**
 * The requirement of one configured action. Reading-only effects (a webhook call, a draft) still need the scope of
 * what they expose or prepare; a draft needs `bookings` because it is what the front desk books from.
 */
export function requirementOf(action: AgentAction): ActionRequirement {
  switch (action.type) {
    case 'call_webhook':
      return { scope: 'webhooks' }
    case 'create_staff_task':
      return { scope: 'agents' }
    case 'message_family':
      return { tool: 'child_records', scope: 'clients' }
    case 'draft_appointment':
      return { tool: 'bookings', scope: 'bookings' }
    case 'start_care_workflow':
      return action.workflow === 'assessment-reminder'
        ? { tool: 'assessments', scope: 'assessments' }
        : { tool: 'child_records', scope: 'children' }
  }
}

/** The parameters of each action type the agent may fill, with their longest length. */
export const FILLABLE: Record<ActionType, Record<string, number>> = {
  call_webhook: { summary: 500 },
  create_staff_task: { title: 200, description: 4000 },
  message_family: { subject: 200, body: 4000 },
  draft_appointment: { note: 1000 },
  start_care_workflow: {},
}

/** The parameters of `action` left open for the agent: fillable and not set by the configuration. */
export function openParameters(action: AgentAction): string[] {
  const configured = action as Record<string, unknown>
  return Object.keys(FILLABLE[action.type]).filter((key) => configured[key] === undefined)
}

/** The name of an action in run steps: its own, or its type with its position. */
export const actionName = (action: AgentAction, index: number) => action.name ?? `${index + 1}-${action.type}`

/** Why an action may not run, in words and as a stable code; undefined when it may. */
export interface Refusal {
  code: 'tool_not_allowed' | 'insufficient_scope'
  message: string
}

/**
 * The guard rail of one action: the tool must be on the agent AND still on its assistant, and the configuring
 * person's scopes (captured when the workflow was configured) must allow the effect.
 * @param agentTools - the tools the workflow gave its agent
 * @param assistantTools - the assistant's tools now (an assistant can lose a tool after the workflow was created)
 * @param scopes - the scopes captured from whoever configured the workflow
 */
export function refusalOf(
  action: AgentAction,
  agentTools: readonly string[],
  assistantTools: readonly string[],
  scopes: readonly string[]
): Refusal | undefined {
  const requirement = requirementOf(action)
  if (requirement.tool && !(agentTools.includes(requirement.tool) && assistantTools.includes(requirement.tool))) {
    return {
      code: 'tool_not_allowed',
      message: `${action.type} needs the "${requirement.tool}" tool on the agent and on its assistant.`,
    }
  }
  if (!satisfiesScope(scopes, requirement.scope)) {
    return {
      code: 'insufficient_scope',
      message: `${action.type} needs the scope "${requirement.scope}", which whoever configured the workflow did not hold.`,
    }
  }
  return undefined
}
