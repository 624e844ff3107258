/**
 * Replay tests: every committed workflow history (test/replay-histories/*.json) is replayed against the current workflow code with Worker.runReplayHistories,
 * the way a worker replays a running workflow after a deploy. A change to a workflow that would break runs already in
 * flight — a new activity, timer or branch without `patched()` — fails here with a nondeterminism error. Every
 * workflow the worker registers must have at least one committed history; the histories of the provider onboarding
 * workflow span a patched change (docs/workflows.md, "Changing a workflow").
 */
import { historyFromJSON } from '@temporalio/common/lib/proto-utils.js'
import type { temporal } from '@temporalio/proto'
import { Worker } from '@temporalio/worker'
import { readdirSync, readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { WORKFLOW_INTERCEPTOR_MODULES, WORKFLOWS_PATH } from '../../worker/create-worker.ts'

type History = temporal.api.history.v1.IHistory

/**
 * The SDK flags of the worker's workflow interceptors (worker/create-worker.ts `WORKFLOW_INTERCEPTOR_MODULES`):
 * OpenTelemetry's. They issue no commands, but their yield points can order commands: since SDK 1.13.3 (flag 6) they
 * wrap update handlers and timers, so an update's answer comes after the commands of the loop it wakes (the re-armed
 * timer of bookingWorkflow-lifecycle-rescheduled-in-start-delay-cancelled, the first history recorded with that flag
 * on). Only those interceptors record these flags (@temporalio/workflow flags 3 to 6, "OpenTelemetryInterceptors…").
 */
const INTERCEPTOR_FLAGS = new Set([3, 4, 5, 6])

/**
 * Whether the worker that recorded `history` ran the interceptors, as its flags say; older histories (the lead
 * qualification's, from a worker without them) replay only without, and are replayed as recorded.
 */
const recordedWithInterceptors = (history: History) =>
  (history.events ?? []).some((e) =>
    e.workflowTaskCompletedEventAttributes?.sdkMetadata?.langUsedFlags?.some((flag) => INTERCEPTOR_FLAGS.has(flag))
  )

const DIRECTORY = new URL('../replay-histories/', import.meta.url)

interface CommittedHistory {
  name: string
  workflowType: string
  history: History
}

function committedHistories(): CommittedHistory[] {
  return readdirSync(DIRECTORY)
    .filter((file) => file.endsWith('.json'))
    .map((file) => {
      const history = historyFromJSON(JSON.parse(readFileSync(new URL(file, DIRECTORY), 'utf8')))
      const started = history.events?.[0]?.workflowExecutionStartedEventAttributes
      return { name: file.replace(/\.json$/, ''), workflowType: started?.workflowType?.name ?? '', history }
    })
}

/** The workflow types the worker registers: the exports of workflows/index.ts. */
function registeredWorkflowTypes(): string[] {
  const source = readFileSync(new URL(WORKFLOWS_PATH, 'file://'), 'utf8')
  return [...source.matchAll(/export\s*\{\s*(\w+)\s*\}\s*from/g)].map((m) => m[1]!)
}

const histories = committedHistories()

describe('committed workflow histories', () => {
  it('cover every workflow the worker registers', () => {
    const covered = new Set(histories.map((h) => h.workflowType))
    const types = registeredWorkflowTypes()
    expect(types.length).toBeGreaterThanOrEqual(7)
    expect(types.filter((type) => !covered.has(type))).toEqual([])
  })

  it('all replay against the current workflow code without nondeterminism', async () => {
    const failures: string[] = []
    let replayed = 0
    for (const intercepted of [true, false]) {
      const source = histories
        .filter((h) => recordedWithInterceptors(h.history) === intercepted)
        .map((h) => ({ workflowId: h.name, history: h.history }))
      const interceptors = intercepted ? { workflowModules: WORKFLOW_INTERCEPTOR_MODULES } : {}
      for await (const result of Worker.runReplayHistories({ workflowsPath: WORKFLOWS_PATH, interceptors }, source)) {
        replayed++
        if (result.error) failures.push(`${result.workflowId}: ${String(result.error)}`)
      }
    }
    expect(failures).toEqual([])
    expect(replayed).toBe(histories.length)
  }, 180_000)

  it('include runs of the provider onboarding workflow from before and after a patched change', () => {
    const patchesOf = (h: CommittedHistory) =>
      (h.history.events ?? []).flatMap((e) => (e.markerRecordedEventAttributes?.markerName === 'core_patch' ? [e] : []))
    const onboarding = histories.filter((h) => h.workflowType === 'providerOnboardingWorkflow')
    expect(onboarding.some((h) => patchesOf(h).length === 0)).toBe(true)
    expect(onboarding.some((h) => patchesOf(h).length > 0)).toBe(true)
  })
})
