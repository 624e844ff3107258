/**
 * @module CPU time used by the processes of a benchmark, read from /proc (Linux): this process, its descendants
 * (the worker, the Temporal dev server) grouped by role, and a local PostgreSQL server's processes. On a shared
 * machine, wall-clock figures depend on what else runs; CPU time per unit of work does not, so the benchmarks report
 * both.
 */
import { readdirSync, readFileSync } from 'node:fs'

const TICKS_PER_SECOND = 100

interface ProcInfo {
  pid: number
  ppid: number
  ticks: number
  cmdline: string
}

function readProc(pid: number): ProcInfo | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
    // The command name is in parentheses and may contain spaces: fields are counted after its closing one.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
    const cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8').replace(/\0/g, ' ')
    return { pid, ppid: Number(fields[1]), ticks: Number(fields[11]) + Number(fields[12]), cmdline }
  } catch {
    return undefined
  }
}

function allProcs(): ProcInfo[] {
  return readdirSync('/proc')
    .filter((name) => /^\d+$/.test(name))
    .map((name) => readProc(Number(name)))
    .filter((p): p is ProcInfo => p !== undefined)
}

function descendants(procs: ProcInfo[], root: number): ProcInfo[] {
  const found: ProcInfo[] = []
  const queue = [root]
  while (queue.length > 0) {
    const parent = queue.shift()!
    for (const p of procs) {
      if (p.ppid === parent) {
        found.push(p)
        queue.push(p.pid)
      }
    }
  }
  return found
}

export type CpuRole = 'api' | 'worker' | 'temporal' | 'postgres'
export type CpuSnapshot = Record<CpuRole, number>

/**
 * CPU seconds used so far by each role.
 * @param postgresPort - the port of a local PostgreSQL server to include (its postmaster and backends)
 */
export function cpuSnapshot(postgresPort?: number): CpuSnapshot {
  const procs = allProcs()
  const snapshot: CpuSnapshot = { api: 0, worker: 0, temporal: 0, postgres: 0 }
  const self = procs.find((p) => p.pid === process.pid)
  snapshot.api = (self?.ticks ?? 0) / TICKS_PER_SECOND
  for (const p of descendants(procs, process.pid)) {
    if (p.cmdline.includes('worker/main.ts')) snapshot.worker += p.ticks / TICKS_PER_SECOND
    else if (p.cmdline.includes('temporal')) snapshot.temporal += p.ticks / TICKS_PER_SECOND
  }
  if (postgresPort !== undefined) {
    const postmaster = procs.find((p) => /postgres/.test(p.cmdline) && p.cmdline.includes(`-p ${postgresPort}`))
    if (postmaster) {
      snapshot.postgres =
        [postmaster, ...descendants(procs, postmaster.pid)].reduce((n, p) => n + p.ticks, 0) / TICKS_PER_SECOND
    }
  }
  return snapshot
}

/** The CPU seconds each role used between two snapshots. */
export const cpuBetween = (before: CpuSnapshot, after: CpuSnapshot): CpuSnapshot => ({
  api: after.api - before.api,
  worker: after.worker - before.worker,
  temporal: after.temporal - before.temporal,
  postgres: after.postgres - before.postgres,
})
