import { describe, expect, it } from 'vitest'
import {
  openParameters,
  refusalOf,
  requirementOf,
  type AgentAction,
} from '../../../../../domain/ai/agents/action-catalogue.ts'
import { AgentWorkflowFields, cronProblem } from '../../../../../domain/ai/agents/agent-workflow-schema.ts'
import { AGENT_WORKFLOW_TEMPLATES } from '../../../../../domain/ai/agents/agent-workflow-templates.ts'
import { fieldErrorsOf } from '../../../../../domain/merge-patch.ts'
import { newId } from '../../../../../domain/ids.ts'

/** An assistant id of the shape the API issues (another shape names no assistant). */
const ASSISTANT = newId('assistant')

const draft: AgentAction = { type: 'draft_appointment', withinDays: 14, durationMinutes: 45 }
const task: AgentAction = { type: 'create_staff_task', title: 'Fixed' }

describe('refusalOf: the guard rail of one action', () => {
  it('needs the tool on the agent and still on the assistant', () => {
    expect(refusalOf(draft, ['bookings'], ['bookings'], ['bookings'])).toBeUndefined()
    expect(refusalOf(draft, [], ['bookings'], ['bookings'])?.code).toBe('tool_not_allowed')
    expect(refusalOf(draft, ['bookings'], ['child_records'], ['bookings'])?.code).toBe('tool_not_allowed')
  })
  it('needs the configuring scopes; a read scope is not enough for a change', () => {
    expect(refusalOf(draft, ['bookings'], ['bookings'], ['bookings.read'])?.code).toBe('insufficient_scope')
    expect(refusalOf({ type: 'call_webhook', url: 'https://x.example' }, [], [], ['webhooks.read'])?.code).toBe(
      'insufficient_scope'
    )
    expect(refusalOf({ type: 'call_webhook', url: 'https://x.example' }, [], [], ['webhooks'])).toBeUndefined()
  })
  it('requires per care workflow the tool and scope of the record it follows', () => {
    expect(requirementOf({ type: 'start_care_workflow', workflow: 'assessment-reminder' })).toEqual({
      tool: 'assessments',
      scope: 'assessments',
    })
    expect(requirementOf({ type: 'start_care_workflow', workflow: 'early-intervention' })).toEqual({
      tool: 'child_records',
      scope: 'children',
    })
  })
  it('leaves open only fillable parameters the configuration did not set', () => {
    expect(openParameters(task)).toEqual(['description'])
    expect(openParameters({ type: 'start_care_workflow', workflow: 'child-progress' })).toEqual([])
  })
})

describe('AgentWorkflowFields', () => {
  const valid = {
    name: 'x',
    trigger: { type: 'event', eventTypes: ['booking.created'] },
    agent: { assistantId: ASSISTANT, instructions: 'Do it', tools: [] },
    actions: [{ type: 'create_staff_task' }],
  }
  const errors = (body: unknown) => {
    const parsed = AgentWorkflowFields.safeParse(body)
    return parsed.success ? [] : fieldErrorsOf(parsed.error).map((e) => e.path)
  }
  it('accepts a valid workflow and applies defaults', () => {
    const parsed = AgentWorkflowFields.parse({ ...valid, trigger: { type: 'schedule', cron: '0 8 * * 1-5' } })
    expect(parsed.enabled).toBe(true)
    expect(parsed.trigger).toEqual({ type: 'schedule', cron: '0 8 * * 1-5', timeZone: 'UTC' })
  })
  it('names each bad field', () => {
    expect(errors({ ...valid, trigger: { type: 'event', eventTypes: ['nope'] } })).toEqual(['trigger.eventTypes.0'])
    expect(errors({ ...valid, trigger: { type: 'schedule' } })).toEqual(['trigger.cron'])
    expect(errors({ ...valid, trigger: { type: 'schedule', cron: '* * * * *', intervalSeconds: 60 } })).toEqual([
      'trigger.cron',
    ])
    expect(errors({ ...valid, trigger: { type: 'schedule', intervalSeconds: 5 } })).toEqual(['trigger.intervalSeconds'])
    expect(errors({ ...valid, trigger: { type: 'schedule', intervalSeconds: 60, timeZone: 'Mars/Base' } })).toEqual([
      'trigger.timeZone',
    ])
    expect(errors({ ...valid, actions: [{ type: 'call_webhook' }] })).toEqual(['actions.0.url'])
    expect(errors({ ...valid, actions: [{ type: 'launch_rocket' }] })).toEqual(['actions.0.type'])
    expect(
      errors({
        ...valid,
        actions: [
          { type: 'create_staff_task', name: 'a' },
          { type: 'message_family', name: 'a' },
        ],
      })
    ).toEqual(['actions.1.name'])
    expect(errors({ ...valid, actions: [] })).toEqual(['actions'])
    expect(errors({ ...valid, agent: { ...valid.agent, tools: ['knowledge', 'knowledge'] } })).toEqual(['agent.tools'])
  })
  it('checks cron fields and their bounds', () => {
    expect(cronProblem('*/15 8-17 * * 1-5')).toBeUndefined()
    expect(cronProblem('0 24 * * *')).toContain('hour')
    expect(cronProblem('0 8 * *')).toContain('Five fields')
    expect(cronProblem('0 8 * * MON')).toContain('day of week')
    expect(cronProblem('*/0 * * * *')).toContain('step')
  })
  it('every template is a valid workflow once an assistant is named', () => {
    expect(AGENT_WORKFLOW_TEMPLATES).toHaveLength(6)
    for (const template of AGENT_WORKFLOW_TEMPLATES) {
      const body = {
        name: template.name,
        trigger: template.trigger,
        agent: { ...template.agent, assistantId: ASSISTANT },
        actions: template.actions,
      }
      expect(errors(body), template.id).toEqual([])
      for (const action of AgentWorkflowFields.parse(body).actions) {
        expect(
          refusalOf(action, template.agent.tools, template.agent.tools, [
            'agents',
            'clients',
            'children',
            'bookings',
            'assessments',
            'webhooks',
          ]),
          `${template.id} ${action.type}`
        ).toBeUndefined()
      }
    }
  })
})
