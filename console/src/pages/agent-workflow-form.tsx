/**
 * @module The form that creates an agent workflow (a template fills it in: what is sent is what the user saw) or edits
 * one. Its fields are the create schema's, the actions (shapes that differ by type) as JSON; the API validates it all.
 */
import { useAgentWorkflowActions, useAgentWorkflowTemplates, type AgentWorkflowInput } from '@therapy-care/react'
import type { Schema } from '@therapy-care/sdk'
import { useState, type FormEvent } from 'react'
import { errorAt, fieldErrors, ProblemMessage } from '../parts/problem.tsx'
import { BLANK, Field, FIELDS, ToolChoices, type Draft, type TextKey, type Tool } from './agent-workflow-fields.tsx'

type Workflow = Schema<'AgentWorkflow'>
type Trigger = Schema<'AgentTrigger'>
type EventType = Extract<Trigger, { type: 'event' }>['eventTypes'][number]
/** A template's id, as the create schema names them; the form's select holds one or nothing (''). */
type TemplateId = NonNullable<AgentWorkflowInput['templateId']>

const fromTrigger = (trigger: Trigger) =>
  trigger.type === 'event'
    ? { triggerType: trigger.type, eventTypes: trigger.eventTypes.join(', ') }
    : {
        triggerType: trigger.type,
        cron: trigger.cron ?? '',
        intervalSeconds: trigger.intervalSeconds?.toString() ?? '',
        timeZone: trigger.timeZone ?? 'UTC',
      }

type Source = Pick<Workflow, 'name' | 'trigger' | 'actions'> & {
  description: string | null
  agent: { assistantId?: string; instructions: string; tools: readonly Tool[] }
}

/** A workflow's or a template's fields in the form's terms. */
const fromSource = ({ name, description, trigger, agent, actions }: Source): Partial<Draft> => ({
  name,
  description: description ?? '',
  ...fromTrigger(trigger),
  ...(agent.assistantId ? { assistantId: agent.assistantId } : {}),
  instructions: agent.instructions,
  tools: agent.tools,
  actions: JSON.stringify(actions, null, 2),
})

/** A select's options: an empty choice, then the items. */
const choices = (empty: string, items: ReadonlyArray<{ id: string; name: string }>) => [
  { value: '', label: empty },
  ...items.map((item) => ({ value: item.id, label: item.name })),
]

const TRIGGER_TYPES = [
  { value: 'event', label: 'Events' },
  { value: 'schedule', label: 'A schedule' },
]

function triggerOf(d: Draft): Trigger {
  if (d.triggerType === 'event') {
    // The API checks each name against its catalogue: a typo comes back as a field error.
    const types = d.eventTypes.split(/[\s,]+/).filter(Boolean) as EventType[]
    return { type: 'event', eventTypes: types }
  }
  return {
    type: 'schedule',
    ...(d.cron.trim() ? { cron: d.cron.trim() } : {}),
    ...(d.intervalSeconds.trim() ? { intervalSeconds: Number(d.intervalSeconds) } : {}),
    timeZone: d.timeZone.trim() || 'UTC',
  }
}

interface FormProps {
  workflow?: Workflow
  assistants: ReadonlyArray<{ id: string; name: string }> | undefined
  onSaved: (secret?: string) => void
  onCancel: () => void
}

/** The actions typed as JSON, or why they are not JSON. */
function parseActions(text: string): { actions: Schema<'AgentAction'>[] } | { error: string } {
  try {
    // The shape of each action is the API's to check; only the JSON syntax is the form's.
    return { actions: JSON.parse(text) as Schema<'AgentAction'>[] }
  } catch (error) {
    return { error: `Not valid JSON: ${error instanceof Error ? error.message : String(error)}` }
  }
}

/** The draft, its changes and its saving: the workflow given is updated, or a new one created (from its template). */
function useWorkflowDraft(workflow: Workflow | undefined, onSaved: FormProps['onSaved']) {
  const { create, update } = useAgentWorkflowActions()
  const templates = useAgentWorkflowTemplates()
  const [d, setDraft] = useState(() =>
    workflow ? { ...BLANK, ...fromSource(workflow), enabled: workflow.enabled } : BLANK
  )
  const [actionsError, setActionsError] = useState<string>()
  const set = (change: Partial<Draft>) => setDraft((current) => ({ ...current, ...change }))
  const chooseTemplate = (id: string) => {
    const template = templates.data?.data.find((t) => t.id === id)
    if (!template) return set({ templateId: '' })
    // The template's actions are typed loosely (records); the API checks them as any other.
    set({ templateId: id, ...fromSource({ ...template, actions: template.actions as Workflow['actions'] }) })
  }
  const submit = (event: FormEvent) => {
    event.preventDefault()
    const parsed = parseActions(d.actions)
    setActionsError('error' in parsed ? parsed.error : undefined)
    if ('error' in parsed) return
    const agent = { assistantId: d.assistantId.trim(), instructions: d.instructions, tools: [...d.tools] }
    const fields = { name: d.name.trim(), trigger: triggerOf(d), agent, actions: parsed.actions }
    const description = d.description.trim()
    if (workflow) {
      const patch = { ...fields, description: description || null }
      update.mutate({ id: workflow.id, patch }, { onSuccess: () => onSaved() })
      return
    }
    const templateId = d.templateId as TemplateId | ''
    const input = { ...fields, enabled: d.enabled, ...(description ? { description } : {}) }
    create.mutate(templateId ? { ...input, templateId } : input, {
      onSuccess: (created) => onSaved(created.webhookSecret),
    })
  }
  const mutation = workflow ? update : create
  return { d, set, chooseTemplate, submit, mutation, templates: templates.data?.data, actionsError }
}

/** Whether a new workflow starts enabled. */
const EnabledChoice = ({ enabled, onChange }: { enabled: boolean; onChange: (enabled: boolean) => void }) => (
  <p>
    <input id="agw-enabled" type="checkbox" checked={enabled} onChange={(e) => onChange(e.target.checked)} />{' '}
    <label htmlFor="agw-enabled">Enabled: runs start as soon as it is created</label>
  </p>
)

/** Save (or create) and Cancel. */
const FormButtons = ({ pending, editing, onCancel }: { pending: boolean; editing: boolean; onCancel: () => void }) => (
  <div className="actions">
    <button type="submit" disabled={pending}>
      {pending ? 'Saving…' : editing ? 'Save changes' : 'Create workflow'}
    </button>
    <button type="button" onClick={onCancel}>
      Cancel
    </button>
  </div>
)

export function AgentWorkflowForm({ workflow, assistants, onSaved, onCancel }: FormProps) {
  const { d, set, chooseTemplate, submit, mutation, templates, actionsError } = useWorkflowDraft(workflow, onSaved)
  const errors = fieldErrors(mutation.error)
  const field = (name: TextKey, options?: ReadonlyArray<{ value: string; label: string }>) => (
    <Field
      name={name}
      value={d[name]}
      onChange={(value) => (name === 'templateId' ? chooseTemplate(value) : set({ [name]: value }))}
      error={(name === 'actions' && actionsError) || errorAt(errors, FIELDS[name].path)}
      {...(options ? { options } : {})}
    />
  )
  return (
    <form onSubmit={submit} aria-labelledby="agw-heading" noValidate>
      <h2 id="agw-heading">{workflow ? `Edit ${workflow.name}` : 'New agent workflow'}</h2>
      <ProblemMessage error={mutation.error} />
      {!workflow && templates && field('templateId', choices('No template', templates))}
      {field('name')}
      {field('description')}
      {!workflow && <EnabledChoice enabled={d.enabled} onChange={(enabled) => set({ enabled })} />}
      <fieldset>
        <legend>Trigger</legend>
        {field('triggerType', TRIGGER_TYPES)}
        {d.triggerType === 'event' ? (
          field('eventTypes')
        ) : (
          <>
            {field('cron')}
            {field('intervalSeconds')}
            {field('timeZone')}
          </>
        )}
      </fieldset>
      <fieldset>
        <legend>Agent</legend>
        {field(
          'assistantId',
          // Without `ai.read` the assistants cannot be listed: their id is typed in.
          assistants && choices('Choose an assistant', assistants)
        )}
        {field('instructions')}
        <ToolChoices tools={d.tools} onChange={(tools) => set({ tools })} error={errorAt(errors, 'agent.tools')} />
      </fieldset>
      {field('actions')}
      <FormButtons pending={mutation.isPending} editing={workflow !== undefined} onCancel={onCancel} />
    </form>
  )
}
