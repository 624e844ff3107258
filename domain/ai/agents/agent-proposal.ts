/**
 * @module What the agent may decide, and how its answer is checked. Pure, so every guard rail is unit-tested.
 *
 * The agent — the offline drafter or a configured chat model — receives the configured actions with the parameters
 * left open to it and answers with values for them. {@link acceptProposal} keeps only a string for an open parameter
 * of a configured action position, within its length; everything else (another action, another URL, a parameter the
 * configuration fixed, a target) is ignored and listed with the reason. Links in accepted text that the
 * configuration does not contain are replaced, so injected text cannot even smuggle a link to the family. An open
 * parameter the agent left empty or got wrong falls back to the offline draft, so a run never stalls on the model.
 */
import { FILLABLE, type ActionType } from './action-catalogue.ts'
import type { AgentContext } from './agent-context.ts'

/** One configured action as the agent sees it. */
export interface PlannedAction {
  position: number
  name: string
  type: ActionType
  /** The parameters the agent may fill (fillable and not fixed by the configuration). */
  open: string[]
}

export interface DecisionInput {
  workflowName: string
  instructions: string
  actions: PlannedAction[]
  context: AgentContext
}

/** The accepted parameters per action position, and what was refused. */
export interface Decision {
  params: Record<number, Record<string, string>>
  ignored: Array<{ path: string; reason: string }>
}

// A link ends before whitespace, quotes and brackets; trailing sentence punctuation is not part of it.
const URL_PATTERN = /\b(?:https?|ftp):\/\/[^\s<>"')\]]*[^\s<>"')\].,;:!?]/gi
export const LINK_REMOVED = '[link removed]'

/**
 * Replaces every link not in `allowed` (the configuration's own URLs).
 * @returns the text and whether anything was replaced
 */
export function neutraliseLinks(text: string, allowed: readonly string[]): { text: string; replaced: boolean } {
  let replaced = false
  const out = text.replace(URL_PATTERN, (url) => {
    if (allowed.includes(url)) return url
    replaced = true
    return LINK_REMOVED
  })
  return { text: out, replaced }
}

const EVENT_PHRASES: Record<string, string> = {
  'appointment.completed': 'the session your child just had',
  'assessment.due': 'an assessment that is now due',
  'assessment.completed': 'a recently completed assessment',
  'booking.created': 'a new appointment',
  'booking.cancelled': 'a cancelled appointment',
  'appointment.rescheduled': 'a rescheduled appointment',
  'child.registered': 'your child’s registration',
  'session.note_added': 'your child’s latest session',
}

/**
 * The offline agent: drafts every open parameter from the workflow's name and instructions and the context's facts
 * and passages. Deterministic, so runs are reproducible and testable without a model.
 */
export function offlineDraft(input: DecisionInput): Record<number, Record<string, string>> {
  const { context } = input
  const eventType = context.event?.type
  const label = eventType
    ? `${eventType}${context.subject.childId ? ` for child ${context.subject.childId}` : ''}`
    : 'scheduled run'
  const knowledge = context.passages.length
    ? `\n\nFrom the centre's knowledge:\n${context.passages.map((p) => `- ${p.documentName}: "${p.quote.replace(/\s+/g, ' ').slice(0, 300)}"`).join('\n')}`
    : ''
  const drafts: Record<ActionType, Record<string, string>> = {
    call_webhook: { summary: `${input.workflowName}: ${label}.` },
    create_staff_task: {
      title: `${input.workflowName}: ${label}`.slice(0, 200),
      description: `${input.instructions}\n\n${context.facts.join('\n')}${knowledge}`.slice(0, 4000),
    },
    message_family: {
      subject: `${input.workflowName}`.slice(0, 200),
      body: `Hello,\n\nThis is your child's care team, writing about ${EVENT_PHRASES[eventType ?? ''] ?? 'your child’s care'}. Please reply or call the centre if you have any questions.\n\nWith best wishes,\nThe care team`,
    },
    draft_appointment: { note: `Proposed by "${input.workflowName}" after ${label}.`.slice(0, 1000) },
    start_care_workflow: {},
  }
  return Object.fromEntries(
    input.actions.map((action) => [
      action.position,
      Object.fromEntries(action.open.map((key) => [key, drafts[action.type][key] ?? ''])),
    ])
  )
}

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value)

/**
 * Checks an agent's raw answer (`{ actions: [{ position, params }] }`, anything else is ignored) against the plan.
 * @param raw - what the model returned, parsed JSON or anything
 * @param allowedUrls - the configuration's own URLs (the only links that may appear in filled text)
 */
export function acceptProposal(input: DecisionInput, raw: unknown, allowedUrls: readonly string[]): Decision {
  const ignored: Decision['ignored'] = []
  const fallback = offlineDraft(input)
  const params: Decision['params'] = {}
  const proposed = new Map<number, Record<string, unknown>>()
  if (isRecord(raw)) {
    for (const key of Object.keys(raw))
      if (key !== 'actions') ignored.push({ path: key, reason: 'not part of a decision' })
    const list = Array.isArray(raw.actions) ? raw.actions : []
    for (const [index, entry] of list.entries()) {
      const position = isRecord(entry) ? entry.position : undefined
      const planned = input.actions.find((action) => action.position === position)
      if (!planned || !isRecord(entry)) {
        ignored.push({ path: `actions.${index}`, reason: 'not a configured action: the agent cannot add actions' })
        continue
      }
      for (const key of Object.keys(entry)) {
        if (key !== 'position' && key !== 'params')
          ignored.push({ path: `actions.${index}.${key}`, reason: 'targets and types come from the configuration' })
      }
      proposed.set(planned.position, isRecord(entry.params) ? entry.params : {})
    }
  } else if (raw !== undefined) {
    ignored.push({ path: '(answer)', reason: 'not a JSON object' })
  }
  for (const action of input.actions) {
    const values: Record<string, string> = {}
    const given = proposed.get(action.position) ?? {}
    for (const key of Object.keys(given)) {
      if (!action.open.includes(key))
        ignored.push({ path: `${action.name}.${key}`, reason: 'not a parameter the agent may fill' })
    }
    for (const key of action.open) {
      const max = FILLABLE[action.type][key] ?? 0
      const value = given[key]
      let chosen = fallback[action.position]?.[key] ?? ''
      if (typeof value === 'string' && value.trim().length > 0 && value.length <= max) chosen = value.trim()
      else if (value !== undefined)
        ignored.push({ path: `${action.name}.${key}`, reason: `not a string of 1 to ${max} characters` })
      const { text, replaced } = neutraliseLinks(chosen, allowedUrls)
      if (replaced)
        ignored.push({ path: `${action.name}.${key}`, reason: 'links not in the configuration were removed' })
      values[key] = text
    }
    params[action.position] = values
  }
  return { params, ignored }
}
