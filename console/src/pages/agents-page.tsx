/**
 * @module Agents: the centre's agent workflows (Trigger → Agent → Action), created, edited, enabled or disabled and
 * deleted here, and the runs of the one selected. A new workflow's signing secret (for its `call_webhook` requests) is
 * shown once, as the API gives it once.
 */
import { useAgentWorkflowActions, useAgentWorkflows, useAssistants } from '@therapy-care/react'
import type { Schema } from '@therapy-care/sdk'
import { useEffect, useRef, useState } from 'react'
import { ProblemMessage } from '../parts/problem.tsx'
import { useCan } from '../parts/session.tsx'
import { AgentRuns } from './agent-runs.tsx'
import { AgentWorkflowForm } from './agent-workflow-form.tsx'

type Workflow = Schema<'AgentWorkflow'>

const ACTION_WORDS: Record<Schema<'AgentAction'>['type'], string> = {
  call_webhook: 'call a webhook',
  create_staff_task: 'create a staff task',
  message_family: 'write to the family',
  draft_appointment: 'draft an appointment',
  start_care_workflow: 'start a care workflow',
}

function triggerWords(trigger: Schema<'AgentTrigger'>): string {
  if (trigger.type === 'event') return `On ${trigger.eventTypes.join(', ')}`
  const zone = trigger.timeZone ?? 'UTC'
  if (trigger.cron) return `On the schedule ${trigger.cron} (${zone})`
  const seconds = trigger.intervalSeconds ?? 0
  if (seconds % 3600 === 0) return `Every ${seconds / 3600} h`
  return seconds % 60 === 0 ? `Every ${seconds / 60} min` : `Every ${seconds} s`
}

export function AgentsPage() {
  // Without `agents.read` every call below would be refused: say so once instead.
  const canRead = useCan('agents.read')
  if (!canRead) {
    return (
      <p className="empty">
        Your role does not include agent workflows. An owner or admin of the centre can give you access.
      </p>
    )
  }
  return <AgentWorkflows />
}

/** A new workflow's signing secret, shown once until the user says it is stored. */
const SecretNotice = ({ secret, onStored }: { secret: string; onStored: () => void }) => (
  <div role="status" className="secret">
    <p>
      <strong>Signing secret of the workflow’s webhook calls:</strong> <code>{secret}</code>
    </p>
    <p>Store it in the system its webhook actions call now: it is not shown again.</p>
    <button type="button" onClick={onStored}>
      I have stored it
    </button>
  </div>
)

/** What a workflow's buttons do; `busy` while a change is under way (each button is then disabled). */
interface WorkflowHandlers {
  busy: true | undefined
  onSelect: (w: Workflow) => void
  onEdit: (w: Workflow) => void
  onToggle: (w: Workflow) => void
  onDelete: (w: Workflow) => void
}

interface CardProps extends WorkflowHandlers {
  workflow: Workflow
  /** The assistants' names by id (empty without `ai.read`: the id is shown). */
  names: ReadonlyMap<string, string>
  selected: boolean
  canChange: boolean
}

/** A workflow's buttons: its runs, and, for those who may change it, edit, enable or disable, delete. */
function WorkflowButtons({ workflow: w, selected, canChange, busy, onSelect, onEdit, onToggle, onDelete }: CardProps) {
  return (
    <div className="actions">
      <button type="button" aria-pressed={selected} onClick={() => onSelect(w)}>
        Runs<span className="visually-hidden"> of {w.name}</span>
      </button>
      {canChange && (
        <>
          <button type="button" onClick={() => onEdit(w)}>
            Edit<span className="visually-hidden"> {w.name}</span>
          </button>
          <button type="button" disabled={busy} onClick={() => onToggle(w)}>
            {w.enabled ? 'Disable' : 'Enable'}
            <span className="visually-hidden"> {w.name}</span>
          </button>
          <button type="button" disabled={busy} onClick={() => onDelete(w)}>
            Delete<span className="visually-hidden"> {w.name}</span>
          </button>
        </>
      )}
    </div>
  )
}

/** One workflow: what starts it, its agent, what it does, and its buttons. */
function WorkflowCard(props: CardProps) {
  const { workflow: w, names } = props
  return (
    <li className="card">
      <h3>{w.name}</h3>
      {w.description && <p>{w.description}</p>}
      <p>
        <span className={`status status-${w.enabled ? 'enabled' : 'disabled'}`}>
          {w.enabled ? 'Enabled' : 'Disabled'}
        </span>{' '}
        · {triggerWords(w.trigger)}
      </p>
      <p>
        Agent: {names.get(w.agent.assistantId) ?? w.agent.assistantId}
        <span className="quiet"> (tools: {w.agent.tools.join(', ') || 'none'})</span>
      </p>
      <p>Then: {w.actions.map((a) => a.name ?? ACTION_WORDS[a.type]).join(', ')}</p>
      <WorkflowButtons {...props} />
    </li>
  )
}

interface ListProps extends WorkflowHandlers {
  workflows: ReturnType<typeof useAgentWorkflows>
  names: ReadonlyMap<string, string>
  selected: string | undefined
  canChange: boolean
}

/** The workflows section: loading, its error, an empty list's words, or a card per workflow. */
function WorkflowList({ workflows, selected, ...rest }: ListProps) {
  return (
    <section aria-labelledby="workflows-heading">
      <h2 id="workflows-heading">Workflows</h2>
      {workflows.isPending && <p role="status">Loading agent workflows…</p>}
      {workflows.isError && <ProblemMessage error={workflows.error} />}
      {workflows.data?.data.length === 0 && (
        <p className="empty">
          No agent workflow yet.{' '}
          {rest.canChange
            ? 'Create one with “New workflow” below: a template is the quickest start.'
            : 'An owner or admin can add one.'}
        </p>
      )}
      {workflows.data && workflows.data.data.length > 0 && (
        <ul className="cards">
          {workflows.data.data.map((w) => (
            <WorkflowCard key={w.id} workflow={w} selected={selected === w.id} {...rest} />
          ))}
        </ul>
      )}
    </section>
  )
}

function AgentWorkflows() {
  const workflows = useAgentWorkflows()
  const { update, remove } = useAgentWorkflowActions()
  const canChange = useCan('agents')
  const canListAssistants = useCan('ai.read')
  const assistants = useAssistants({ enabled: canListAssistants })
  const [selected, setSelected] = useState<string>()
  // Closed (undefined), a new workflow (no `workflow`), or the one being edited.
  const [form, setForm] = useState<{ workflow?: Workflow }>()
  const [secret, setSecret] = useState<string>()
  const formRegion = useRef<HTMLDivElement>(null)
  // The form opens below the list: the focus goes there, or a keyboard user would have to look for it.
  useEffect(() => {
    if (form) formRegion.current?.focus()
  }, [form])
  const chosen = workflows.data?.data.find((w) => w.id === selected)
  const handlers: WorkflowHandlers = {
    busy: update.isPending || remove.isPending || undefined,
    onSelect: (w) => setSelected(w.id),
    onEdit: (w) => setForm({ workflow: w }),
    onToggle: (w) => update.mutate({ id: w.id, patch: { enabled: !w.enabled } }),
    onDelete: (w) => {
      if (!confirm(`Delete the agent workflow “${w.name}”? No new runs start; its past runs stay readable.`)) return
      remove.mutate(w.id, { onSuccess: () => setSelected((id) => (id === w.id ? undefined : id)) })
    },
  }
  return (
    <>
      <p>
        An agent workflow starts on events or a schedule, lets an assistant work out what to do, and acts: a staff task,
        a message to a family, a draft appointment, a webhook call.
      </p>
      {secret && <SecretNotice secret={secret} onStored={() => setSecret(undefined)} />}
      <ProblemMessage error={update.error ?? remove.error} />
      <WorkflowList
        workflows={workflows}
        names={new Map(assistants.data?.data.map((a) => [a.id, a.name]))}
        selected={selected}
        canChange={canChange}
        {...handlers}
      />
      {chosen && <AgentRuns workflowId={chosen.id} name={chosen.name} />}
      {canChange && !form && (
        <button type="button" onClick={() => setForm({})}>
          New workflow
        </button>
      )}
      {canChange && form && (
        <div ref={formRegion} tabIndex={-1}>
          <AgentWorkflowForm
            key={form.workflow?.id ?? 'new'}
            workflow={form.workflow}
            assistants={assistants.data?.data}
            onSaved={(newSecret) => {
              setForm(undefined)
              if (newSecret) setSecret(newSecret)
            }}
            onCancel={() => setForm(undefined)}
          />
        </div>
      )}
    </>
  )
}
