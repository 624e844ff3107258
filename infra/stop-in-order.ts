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

/** A step running longer than this is logged by name while it runs. */
export const SLOW_STOP_STEP_MS = 3_000

/**
 * Runs each step's stop in order; logs a warning naming a step that takes longer than `slowMs`, and once all are
 * done, the milliseconds each took. A step that throws stops the sequence (the caller exits non-zero).
 */
export async function stopInOrder(steps: StopStep[], logger: Logger, slowMs = SLOW_STOP_STEP_MS): Promise<void> {
  const took: Record<string, number> = {}
  for (const step of steps) {
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
  logger.info({ stepsMs: took }, 'stopped')
}
