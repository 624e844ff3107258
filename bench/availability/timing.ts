/** @module Timing for the availability benchmark: run a step many times, report median and 95th percentile. */
import { performance } from 'node:perf_hooks'

export interface Timing {
  medianMs: number
  p95Ms: number
  /** The fastest run: on a shared machine, the closest to the cost of the work itself. */
  bestMs: number
  runs: number
}

/**
 * Runs `step` `warmup` times unmeasured, then `runs` times measured, one after the other.
 * @param step - receives the iteration number (to vary the provider asked about)
 */
export async function time(runs: number, warmup: number, step: (i: number) => Promise<unknown>): Promise<Timing> {
  for (let i = 0; i < warmup; i++) await step(i)
  const samples: number[] = []
  for (let i = 0; i < runs; i++) {
    const started = performance.now()
    await step(i)
    samples.push(performance.now() - started)
  }
  samples.sort((a, b) => a - b)
  const at = (q: number) => samples[Math.min(samples.length - 1, Math.floor(q * samples.length))]!
  return { medianMs: at(0.5), p95Ms: at(0.95), bestMs: samples[0]!, runs }
}
