/**
 * @module Heartbeats for activities whose one call may be long (a model, a processor's retried request): a timer
 * keeps the beat, not progress, so a worker that dies is noticed at the heartbeat timeout instead of at the end of
 * the start-to-close timeout, and the activity is retried elsewhere sooner.
 */
import { Context } from '@temporalio/activity'

/** Runs `call`, telling Temporal every `everyMs` that this activity is alive. */
export async function whileBeating<T>(everyMs: number, call: () => Promise<T>): Promise<T> {
  const context = Context.current()
  const beat = setInterval(() => context.heartbeat(), everyMs)
  try {
    return await call()
  } finally {
    clearInterval(beat)
  }
}
