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

/**
 * Runs two steps in alternation, `a` then `b` for each iteration, after `warmup` unmeasured pairs: on a shared machine
 * both series then meet the same drift, which is what a ratio of the two needs. CPU time is charged to each step's
 * own runs.
 */
export async function timeAlternating(
  runs: number,
  warmup: number,
  a: (i: number) => Promise<unknown>,
  b: (i: number) => Promise<unknown>
): Promise<[Timing, Timing]> {
  for (let i = 0; i < warmup; i++) {
    await a(i)
    await b(i)
  }
  const series = [a, b].map((step) => ({ step, samples: [] as number[], cpuMicros: 0 }))
  for (let i = 0; i < runs; i++) {
    for (const s of series) {
      const cpuBefore = process.cpuUsage()
      const started = performance.now()
      await s.step(i)
      s.samples.push(performance.now() - started)
      const cpu = process.cpuUsage(cpuBefore)
      s.cpuMicros += cpu.user + cpu.system
    }
  }
  const timings = series.map(({ samples, cpuMicros }) => {
    samples.sort((x, y) => x - y)
    const at = (q: number) => samples[Math.min(samples.length - 1, Math.floor(q * samples.length))]!
    return { medianMs: at(0.5), p95Ms: at(0.95), bestMs: samples[0]!, cpuMs: cpuMicros / 1000 / runs, runs }
  })
  return [timings[0]!, timings[1]!]
}
