/**
 * @module Stopping a process's parts one after the other, saying which one a stop waits on. A stop that hangs was
 * seen only as "did not stop within 15000 ms" (a rolling restart in many-instances.int.test.ts): which part held it
 * (HTTP connections, a delivery pump, the agent dispatcher, the pools) was not in any log.
 */
import type { Logger } from './logger.ts'

/** A part of the process and how to stop it. */
export interface StopStep {
  name: string
  stop(): Promise<void> | void
}

/**
 * One stage of a stop: a step, or steps stopped at the same time (parts that do not depend on each other, such as
 * the background loops beside the HTTP drain), each still timed and named on its own.
 */
export type StopStage = StopStep | readonly StopStep[]

/** A step running longer than this is logged by name while it runs. */
export const SLOW_STOP_STEP_MS = 3_000

/**
 * Runs each stage's stop in order, the steps of a stage at once; logs a warning naming a step that takes longer than
 * `slowMs`, and once all are done, the milliseconds each took. A step that throws stops the sequence after its stage
 * (the caller exits non-zero).
 */
export async function stopInOrder(stages: StopStage[], logger: Logger, slowMs = SLOW_STOP_STEP_MS): Promise<void> {
  const took: Record<string, number> = {}
  const timed = async (step: StopStep) => {
    const began = Date.now()
    const slow = setTimeout(
      () => logger.warn({ step: step.name, waitedMs: Date.now() - began }, 'stop still waiting on a step'),
      slowMs
    )
    slow.unref()
    try {
      await step.stop()
    } finally {
      clearTimeout(slow)
      took[step.name] = Date.now() - began
    }
  }
  for (const stage of stages) {
    const steps = Array.isArray(stage) ? stage : [stage as StopStep]
    const outcomes = await Promise.allSettled(steps.map(timed))
    const failed = outcomes.find((o): o is PromiseRejectedResult => o.status === 'rejected')
    if (failed) throw failed.reason
  }
  logger.info({ stepsMs: took }, 'stopped')
}
