/**
 * @module Writes a finished workflow's history into test/replay-histories/, where the replay test
 * (test/integration/workflow-replay.int.test.ts) replays it against the current workflow code. Integration tests call
 * it after a representative run; it writes only when RECORD_REPLAY_HISTORIES=1, because a committed history must stay
 * the record of the code that made it (docs/workflows.md, "Replay tests").
 */
import type { WorkflowHandle } from '@temporalio/client'
import { historyToJSON } from '@temporalio/common/lib/proto-utils.js'
import { writeFileSync } from 'node:fs'

/** Whether this run records histories (RECORD_REPLAY_HISTORIES=1). */
export const recordingHistories = process.env.RECORD_REPLAY_HISTORIES === '1'

/**
 * Saves `handle`'s history as `<name>.json` when recording.
 * @param name - `<workflowType>-<what the run shows>`, e.g. `providerOnboardingWorkflow-approved`
 */
export async function recordHistory(handle: WorkflowHandle, name: string): Promise<void> {
  if (!recordingHistories) return
  const history = await handle.fetchHistory()
  writeFileSync(new URL(`./${name}.json`, import.meta.url), `${historyToJSON(history)}\n`)
}
