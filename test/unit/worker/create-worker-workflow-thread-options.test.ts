/**
 * Workflows in the worker's main thread (WORKER_WORKFLOWS_IN_MAIN_THREAD, the test suite's worker hosts) keep the
 * deadline of one activation that the SDK gives them in their own thread: its debug mode, the only way to the main
 * thread, would lift it, and the option that gives it back is not in the SDK's types, so an upgrade could drop it.
 */
import { DefaultLogger } from '@temporalio/worker'
import { noopMetricMeter } from '@temporalio/common'
// Deep import: the SDK's own option compiler, to see what a Worker would run with, without a server.
import { compileWorkerOptions } from '@temporalio/worker/lib/worker-options.js'
import { describe, expect, it } from 'vitest'
import { workflowThreadOptions } from '../../../worker/create-worker.ts'

const compiled = (inMainThread: boolean) =>
  compileWorkerOptions(
    { taskQueue: 'q', workflowsPath: 'unused', ...workflowThreadOptions(inMainThread) },
    new DefaultLogger('ERROR'),
    noopMetricMeter
  )

describe('where workflow code runs', () => {
  it('runs it in the main thread with the same 5 s deadline per activation as in a thread of its own', () => {
    const main = compiled(true)
    const own = compiled(false)
    expect(main.debugMode).toBe(true)
    expect(own.debugMode).toBe(false)
    expect(main.isolateExecutionTimeoutMs).toBe(5000)
    expect(own.isolateExecutionTimeoutMs).toBe(5000)
  })
})
