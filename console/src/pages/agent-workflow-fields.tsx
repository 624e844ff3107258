/**
 * @module The fields of the agent workflow form: the draft it edits (strings, as the inputs hold them), how each field
 * is labelled and where the API reports its errors, and the labelled input, textarea, select and tool checkboxes.
 */
import type { Schema } from '@therapy-care/sdk'
import type { ChangeEvent } from 'react'
import { TOOLS, type Tool } from '../parts/catalogue.ts'

export type { Tool }

type Trigger = Schema<'AgentTrigger'>

/** An empty form: what a new workflow starts from. */
export const BLANK = {
  templateId: '',
  name: '',
  description: '',
  enabled: true,
  triggerType: 'event' as Trigger['type'],
  eventTypes: '',
  cron: '',
  intervalSeconds: '',
  // A person reads a schedule in their own zone; the API's default (UTC) rarely is theirs.
  timeZone: Intl.DateTimeFormat().resolvedOptions().timeZone,
  assistantId: '',
  instructions: '',
  tools: ['knowledge'] as readonly Tool[],
  actions: '[]',
}
export type Draft = typeof BLANK

export type TextKey = Exclude<keyof Draft, 'enabled' | 'tools'>

/** How each field of the draft is shown: its label, the API's path for its errors, a hint, a textarea's rows. */
export const FIELDS: Record<TextKey, { label: string; path: string; hint?: string; rows?: number }> = {
  templateId: { label: 'Start from a template (optional): it fills the form in', path: 'templateId' },
  name: { label: 'Name', path: 'name' },
  description: { label: 'Description (optional)', path: 'description' },
  triggerType: { label: 'Starts on', path: 'trigger.type' },
  eventTypes: {
    label: 'Event types',
    path: 'trigger.eventTypes',
    hint: 'Separated by commas, e.g. appointment.completed, assessment.due: one run per event.',
  },
  cron: { label: 'Cron expression, e.g. 0 8 * * 1-5 for 8:00 on weekdays', path: 'trigger.cron' },
  intervalSeconds: { label: 'Or, with no cron, every this many seconds (60 or more)', path: 'trigger.intervalSeconds' },
  timeZone: { label: 'Time zone of the schedule', path: 'trigger.timeZone' },
  assistantId: { label: 'Assistant it acts through', path: 'agent.assistantId' },
  instructions: { label: 'Instructions: what the agent should do on each run', path: 'agent.instructions', rows: 4 },
  actions: {
    label: 'Actions, as JSON',
    path: 'actions',
    rows: 8,
    hint:
      'A list of 1 to 10 actions, each with a "type": call_webhook (with a "url"), create_staff_task, ' +
      'message_family, draft_appointment or start_care_workflow (with a "workflow"). ' +
      'E.g. [{"type": "create_staff_task", "dueInHours": 24}].',
  },
}

/** A hint or an error, referred to by its field's `aria-describedby`; nothing without text. */
const Note = ({ id, className, text }: { id: string; className: string; text: string | undefined }) =>
  text ? (
    <p id={id} className={className}>
      {text}
    </p>
  ) : null

/** A labelled input, textarea (`rows`) or select (`options`), its hint and error tied to it for screen readers. */
export function Field(p: {
  name: TextKey
  value: string
  onChange: (value: string) => void
  error: string | undefined
  options?: ReadonlyArray<{ value: string; label: string }>
}) {
  const { label, hint, rows } = FIELDS[p.name]
  const id = `agw-${p.name}`
  const attrs = {
    id,
    value: p.value,
    onChange: (e: ChangeEvent<HTMLInputElement | HTMLTextAreaElement | HTMLSelectElement>) =>
      p.onChange(e.target.value),
    'aria-invalid': p.error ? true : undefined,
    'aria-describedby': [hint && `${id}-hint`, p.error && `${id}-error`].filter(Boolean).join(' ') || undefined,
  }
  return (
    <>
      <label htmlFor={id}>{label}</label>
      {p.options ? (
        <select {...attrs}>
          {p.options.map((o) => (
            <option key={o.value} value={o.value}>
              {o.label}
            </option>
          ))}
        </select>
      ) : rows ? (
        <textarea rows={rows} spellCheck={rows < 6} {...attrs} />
      ) : (
        <input {...attrs} />
      )}
      <Note id={`${id}-hint`} className="quiet" text={hint} />
      <Note id={`${id}-error`} className="field-error" text={p.error} />
    </>
  )
}

/** The agent's tools, one checkbox each, with the API's error about them. */
export function ToolChoices(p: {
  tools: readonly Tool[]
  onChange: (tools: readonly Tool[]) => void
  error: string | undefined
}) {
  const toggle = (tool: Tool, on: boolean) => p.onChange(on ? [...p.tools, tool] : p.tools.filter((t) => t !== tool))
  return (
    <fieldset aria-describedby={p.error ? 'agw-tools-error' : undefined}>
      <legend>Tools (a subset of the assistant’s; each action needs its own)</legend>
      {TOOLS.map((tool) => (
        <span key={tool} className="tag">
          <input
            id={`agw-tool-${tool}`}
            type="checkbox"
            checked={p.tools.includes(tool)}
            onChange={(e) => toggle(tool, e.target.checked)}
          />{' '}
          <label htmlFor={`agw-tool-${tool}`}>{tool}</label>
        </span>
      ))}
      <Note id="agw-tools-error" className="field-error" text={p.error} />
    </fieldset>
  )
}
