/**
 * @module The configuration of an agent workflow: a trigger, an agent and its actions. One schema for create, for a
 * template's defaults merged with overrides, and (through a merge patch) for update, so a PATCH can never leave a
 * workflow that a POST would have refused.
 */
import { z } from '@hono/zod-openapi'
import { ALL_SUBSCRIBABLE_EVENT_TYPES, type EventType } from '../../events/event-catalogue.ts'
import { TOOL_NAMES } from '../assistants/tool-catalogue.ts'
import { AgentActionSchema, actionName } from './action-catalogue.ts'
import { resourceId } from '../../id-schema.ts'
import { isValidTimeZone } from '../../time.ts'

/** Bounds of each field of a five-field cron expression (minute hour day-of-month month day-of-week). */
const CRON_FIELDS: Array<[string, number, number]> = [
  ['minute', 0, 59],
  ['hour', 0, 23],
  ['day of month', 1, 31],
  ['month', 1, 12],
  ['day of week', 0, 6],
]

/**
 * Checks a five-field cron expression with numbers, `*`, ranges, steps and lists (what Temporal accepts and a
 * person can read back). Names (`MON`) and macros are refused to keep the check simple and exact.
 * @returns why it is not valid, or undefined
 */
export function cronProblem(expression: string): string | undefined {
  const fields = expression.trim().split(/\s+/)
  if (fields.length !== 5) return 'Five fields: minute hour day-of-month month day-of-week.'
  for (const [index, field] of fields.entries()) {
    const [label, min, max] = CRON_FIELDS[index]!
    for (const part of field.split(',')) {
      const match = /^(\*|(\d+)(?:-(\d+))?)(?:\/(\d+))?$/.exec(part)
      if (!match) return `The ${label} field "${field}" is not a number, range, list or step.`
      const values = [match[2], match[3]].filter((v) => v !== undefined).map(Number)
      if (values.some((v) => v < min || v > max)) return `The ${label} field must be within ${min}-${max}.`
      if (match[4] !== undefined && Number(match[4]) < 1) return `The ${label} step must be at least 1.`
    }
  }
  return undefined
}

const EventTrigger = z.strictObject({
  type: z.literal('event'),
  eventTypes: z
    .array(z.enum(ALL_SUBSCRIBABLE_EVENT_TYPES as [EventType, ...EventType[]]))
    .min(1)
    .max(ALL_SUBSCRIBABLE_EVENT_TYPES.length)
    .refine((types) => new Set(types).size === types.length, { message: 'Each event type at most once' })
    .openapi({ description: 'Event types (GET /v1/events catalogue) that start a run, one run per event.' }),
})

const ScheduleTrigger = z
  .strictObject({
    type: z.literal('schedule'),
    cron: z
      .string()
      .max(100)
      .superRefine((value, ctx) => {
        const problem = cronProblem(value)
        if (problem) ctx.addIssue({ code: 'custom', message: problem })
      })
      .optional()
      .openapi({ example: '0 8 * * 1-5', description: 'A five-field cron expression, in `timeZone`.' }),
    intervalSeconds: z
      .number()
      .int()
      .min(60)
      .max(31 * 86_400)
      .optional()
      .openapi({ description: 'Run every this many seconds (60 to 31 days) instead of a cron expression.' }),
    timeZone: z
      .string()
      .max(64)
      .refine(isValidTimeZone, { message: 'Not an IANA time zone' })
      .default('UTC')
      .openapi({ example: 'America/Chicago' }),
  })
  .superRefine((trigger, ctx) => {
    if ((trigger.cron === undefined) === (trigger.intervalSeconds === undefined)) {
      ctx.addIssue({ code: 'custom', path: ['cron'], message: 'Give exactly one of cron and intervalSeconds.' })
    }
  })

export const AgentTriggerSchema = z.discriminatedUnion('type', [EventTrigger, ScheduleTrigger]).openapi('AgentTrigger')
export type AgentTrigger = z.output<typeof AgentTriggerSchema>

const agentSpecShape = {
  assistantId: resourceId('assistant').openapi({
    description: 'The assistant the agent acts through (its scope and tools).',
  }),
  instructions: z.string().trim().min(1).max(4000).openapi({ description: 'What the agent should do on each run.' }),
  tools: z
    .array(z.enum(TOOL_NAMES))
    .max(TOOL_NAMES.length)
    .refine((tools) => new Set(tools).size === tools.length, { message: 'Each tool at most once' })
    .openapi({ description: 'A subset of the assistant’s tools; actions need theirs (docs/agents.md).' }),
}

export const AgentSpecSchema = z.strictObject(agentSpecShape).openapi('AgentSpec')

/** The agent of a create or PATCH body: members given replace (with a template, usually just `assistantId`). */
export const AgentSpecOverride = z.strictObject(agentSpecShape).partial().openapi('AgentSpecOverride')

export const AgentWorkflowFields = z.strictObject({
  name: z.string().trim().min(1).max(100),
  description: z.string().trim().min(1).max(500).optional(),
  enabled: z.boolean().default(true),
  trigger: AgentTriggerSchema,
  agent: AgentSpecSchema,
  actions: z
    .array(AgentActionSchema)
    .min(1)
    .max(10)
    .superRefine((actions, ctx) => {
      const seen = new Set<string>()
      for (const [index, action] of actions.entries()) {
        const label = actionName(action, index)
        if (seen.has(label))
          ctx.addIssue({ code: 'custom', path: [index, 'name'], message: `Another action is named "${label}".` })
        seen.add(label)
      }
    }),
})

export type AgentWorkflowConfig = z.output<typeof AgentWorkflowFields>
