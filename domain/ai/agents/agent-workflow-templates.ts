/**
 * @module Templates for the six agent workflow kinds the spec names. A template is a configuration without an
 * assistant: `POST /v1/agent-workflows` with `templateId` merges the request's fields over it (JSON merge patch, so
 * `actions` given replace the template's whole list) and validates the result like any workflow.
 */
import type { AgentAction } from './action-catalogue.ts'
import type { AgentTrigger } from './agent-workflow-schema.ts'
import type { ToolName } from '../assistants/tool-catalogue.ts'

export interface AgentWorkflowTemplate {
  id: string
  name: string
  description: string
  trigger: AgentTrigger
  agent: { instructions: string; tools: ToolName[] }
  /** In the configuration's input form (defaults are applied when the workflow is created). */
  actions: Array<Partial<AgentAction> & Pick<AgentAction, 'type'>>
}

export const AGENT_WORKFLOW_TEMPLATES: readonly AgentWorkflowTemplate[] = [
  {
    id: 'appointment-follow-up',
    name: 'Appointment follow-up',
    description:
      'After a completed appointment: thank the family, propose the next session and remind staff to file the note.',
    trigger: { type: 'event', eventTypes: ['appointment.completed'] },
    agent: {
      instructions:
        'Follow up a completed appointment: a short thank-you to the family, a proposed next session, a staff reminder.',
      tools: ['child_records', 'bookings'],
    },
    actions: [
      { type: 'message_family', name: 'thank-family' },
      { type: 'draft_appointment', name: 'propose-next', withinDays: 14 },
      { type: 'create_staff_task', name: 'staff-follow-up', dueInHours: 48 },
    ],
  },
  {
    id: 'assessment-reminder',
    name: 'Assessment reminder',
    description: 'When an assessment falls due: a task for the provider and a note to the family to book it.',
    trigger: { type: 'event', eventTypes: ['assessment.due'] },
    agent: {
      instructions: 'An assessment is due: ask staff to schedule it and tell the family it is due.',
      tools: ['assessments', 'child_records'],
    },
    actions: [
      { type: 'create_staff_task', name: 'schedule-assessment', dueInHours: 72 },
      { type: 'message_family', name: 'tell-family' },
    ],
  },
  {
    id: 'early-intervention-check-in',
    name: 'Early-intervention check-in',
    description: 'When a child is registered: make sure the early-intervention check-in runs and intake is assigned.',
    trigger: { type: 'event', eventTypes: ['child.registered'] },
    agent: {
      instructions: 'A child was registered: start the early-intervention check-in and ask staff to complete intake.',
      tools: ['child_records'],
    },
    actions: [
      { type: 'start_care_workflow', name: 'start-ei-check-in', workflow: 'early-intervention' },
      { type: 'create_staff_task', name: 'intake', dueInHours: 72 },
    ],
  },
  {
    id: 'child-progress-follow-up',
    name: 'Child progress follow-up',
    description:
      'When a signed note is added: keep the child’s progress follow-up running and flag the note for review.',
    trigger: { type: 'event', eventTypes: ['session.note_added', 'assessment.completed'] },
    agent: {
      instructions:
        'New clinical information: keep the progress follow-up running and ask the lead therapist to review it.',
      tools: ['child_records', 'sessions', 'assessments'],
    },
    actions: [
      { type: 'start_care_workflow', name: 'progress-follow-up', workflow: 'child-progress' },
      { type: 'create_staff_task', name: 'review-progress', dueInHours: 120 },
    ],
  },
  {
    id: 'marketplace-lead-qualification',
    name: 'Marketplace lead qualification',
    description: 'Every weekday morning: a task to review and qualify the new marketplace enquiries.',
    trigger: { type: 'schedule', cron: '0 8 * * 1-5', timeZone: 'UTC' },
    agent: {
      instructions:
        'Every weekday morning ask the intake coordinator to qualify new enquiries against our intake policy.',
      tools: ['providers', 'knowledge'],
    },
    actions: [{ type: 'create_staff_task', name: 'qualify-leads', dueInHours: 8 }],
  },
  {
    id: 'provider-onboarding',
    name: 'Provider onboarding',
    description: 'When a provider is approved: the welcome checklist for staff (schedule, shadowing, first caseload).',
    trigger: { type: 'event', eventTypes: ['provider.approved'] },
    agent: {
      instructions: 'A provider was approved: ask the centre manager to run the welcome checklist.',
      tools: ['providers', 'knowledge'],
    },
    actions: [{ type: 'create_staff_task', name: 'welcome-checklist', dueInHours: 72 }],
  },
]

/** A template by id, or undefined. */
export const templateById = (id: string) => AGENT_WORKFLOW_TEMPLATES.find((template) => template.id === id)
