/**
 * @module Timing for the availability benchmark: run a step many times, report median, 95th percentile and best of
 * the wall-clock time, and the CPU time this process spent per run (on a shared machine, wall clock includes waiting
 * for a CPU; CPU time does not).
 */
import { performance } from 'node:perf_hooks'

export interface Timing {
  medianMs: number
  p95Ms: number
  /** The fastest run: on a shared machine, the closest to the cost of the work itself. */
  bestMs: number
  /** CPU time (user + system) of this process per run, averaged over the measured runs. */
  cpuMs: number
  runs: number
}

/** Median of some samples (they are sorted in place). */
export function median(samples: number[]): number {
  samples.sort((a, b) => a - b)
  return samples[samples.length >> 1] ?? Number.NaN
}

/**
 * Runs `step` `warmup` times unmeasured, then `runs` times measured, one after the other.
 * @param step - receives the iteration number (to vary the provider asked about)
 */
export async function time(runs: number, warmup: number, step: (i: number) => Promise<unknown>): Promise<Timing> {
  for (let i = 0; i < warmup; i++) await step(i)
  const samples: number[] = []
  const cpuBefore = process.cpuUsage()
  for (let i = 0; i < runs; i++) {
    const started = performance.now()
    await step(i)
    samples.push(performance.now() - started)
  }
  const cpu = process.cpuUsage(cpuBefore)
  samples.sort((a, b) => a - b)
  const at = (q: number) => samples[Math.min(samples.length - 1, Math.floor(q * samples.length))]!
  return { medianMs: at(0.5), p95Ms: at(0.95), bestMs: samples[0]!, cpuMs: (cpu.user + cpu.system) / 1000 / runs, runs }
}
