/**
 * Every domain file that starts, signals, updates, queries or counts Temporal workflows (or keeps their schedules)
 * follows one pattern (issue 79, item 4; docs/workflows.md, "Calls into Temporal"): it is named `<concept>-workflow-calls.ts`
 * and exports one factory, `create<Concept>WorkflowCalls(deps)`, whose object holds the calls; the rest of the
 * domain asks that object. Before, 19 files called Temporal under about seven naming patterns (starters, notifiers,
 * syncs, reminders, schedules, runs, services).
 */
import { readdirSync, readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'

const DOMAIN = 'domain'

/** A call into Temporal: through a client's workflow or schedule API, an update on a handle, or an update-with-start. */
const TEMPORAL_CALL =
  /\.(workflow|schedule)\.(start|signalWithStart|getHandle|execute|executeUpdateWithStart|startUpdateWithStart|count|list|create)\b|\.executeUpdate\(|WithStartWorkflowOperation/

/** The one other file that may call Temporal, and why. */
const MACHINERY: Record<string, string> = {
  'workflow-runs/workflow-outbox.ts':
    "the outbox: every concept's start is a row it writes in the change's transaction, and this starts them all",
}

const withoutComments = (source: string) => source.replace(/\/\*[\s\S]*?\*\//g, '').replace(/^\s*\/\/.*$/gm, '')

function domainFiles(): Array<{ file: string; source: string }> {
  return readdirSync(DOMAIN, { recursive: true, encoding: 'utf8' })
    .filter((file) => file.endsWith('.ts'))
    .map((file) => ({ file, source: withoutComments(readFileSync(`${DOMAIN}/${file}`, 'utf8')) }))
}

/** What is wrong with a file's calls into Temporal, if anything. */
function patternProblem(file: string, source: string): string | undefined {
  const calls = TEMPORAL_CALL.test(source)
  const named = file.endsWith('-workflow-calls.ts')
  if (calls && !named && !(file in MACHINERY)) return 'calls Temporal outside a *-workflow-calls.ts file'
  if (!named) return undefined
  const factories = [...source.matchAll(/^export function (create\w*WorkflowCalls)\(/gm)]
  if (factories.length !== 1) return `exports ${factories.length} create…WorkflowCalls factories, not one`
  if (!calls) return 'is named for calls into Temporal but makes none'
  return undefined
}

describe('calls into Temporal', () => {
  it('are made only in *-workflow-calls.ts files, each with one create…WorkflowCalls factory', () => {
    const files = domainFiles()
    const problems = files
      .map(({ file, source }) => [file, patternProblem(file, source)] as const)
      .filter(([, problem]) => problem)
      .map(([file, problem]) => `${file}: ${problem}`)
    expect(problems).toEqual([])
    expect(files.filter(({ file }) => file.endsWith('-workflow-calls.ts')).length).toBeGreaterThanOrEqual(10)
  })

  it('are told apart from the rest', () => {
    expect(patternProblem('leads/offer-lead.ts', 'await temporal.workflow.getHandle(id).signal(s)')).toMatch(/outside/)
    expect(patternProblem('leads/lead-workflow-calls.ts', 'export const calls = {}')).toMatch(/0 create/)
    expect(patternProblem('leads/offer-lead.ts', 'await calls.offer(uow, id)')).toBeUndefined()
  })
})
