/**
 * @module CPU time used by the processes of a benchmark, read from /proc (Linux): this process, its descendants
 * (the worker, the Temporal dev server, a peer process) grouped by role, and a local PostgreSQL server's processes. On a shared
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

export type CpuRole = 'api' | 'worker' | 'temporal' | 'postgres' | 'peer'
/** CPU seconds used so far, by process: a process's own ticks, so processes that start or end between two snapshots
 * (a worker killed and started again, a database connection replaced) do not turn sums into nonsense. */
export type CpuSnapshot = Map<number, { role: CpuRole; seconds: number }>

/**
 * CPU seconds used so far by this process (role `api`), its descendants by role (the worker, the Temporal dev server,
 * the benchmark's peer process) and the given PostgreSQL server processes.
 * @param postgresPids - this database's server processes (its connections, from `pg_stat_activity`): the server is
 *   shared with other work, whose connections come and go
 */
export function cpuSnapshot(postgresPids: number[] = []): CpuSnapshot {
  const procs = allProcs()
  const snapshot: CpuSnapshot = new Map()
  const add = (p: ProcInfo, role: CpuRole) => snapshot.set(p.pid, { role, seconds: p.ticks / TICKS_PER_SECOND })
  const self = procs.find((p) => p.pid === process.pid)
  if (self) add(self, 'api')
  for (const p of descendants(procs, process.pid)) {
    if (p.cmdline.includes('worker/main.ts')) add(p, 'worker')
    else if (p.cmdline.includes('webhook-peer')) add(p, 'peer')
    else if (p.cmdline.includes('api/server.ts')) add(p, 'api')
    // The embedded PGlite in its own process, as `npm start` runs it (bench/bench-database.ts).
    else if (p.cmdline.includes('embedded-postgres')) add(p, 'postgres')
    else if (p.cmdline.includes('temporal')) add(p, 'temporal')
  }
  const wanted = new Set(postgresPids)
  for (const p of procs) if (wanted.has(p.pid)) add(p, 'postgres')
  return snapshot
}

/**
 * The CPU seconds each role used between two snapshots: what the processes alive at the second one used since the
 * first (or since they started). A process that ended in between is not counted: a lower bound then.
 */
export function cpuBetween(before: CpuSnapshot, after: CpuSnapshot): Record<CpuRole, number> {
  const used: Record<CpuRole, number> = { api: 0, worker: 0, temporal: 0, postgres: 0, peer: 0 }
  for (const [pid, { role, seconds }] of after) used[role] += seconds - (before.get(pid)?.seconds ?? 0)
  return used
}

/** CPU seconds used so far by each of `pids` that is alive (its own ticks, not its children's). */
export function cpuSecondsOf(pids: Iterable<number>): Map<number, number> {
  const seconds = new Map<number, number>()
  for (const pid of pids) {
    const p = readProc(pid)
    if (p) seconds.set(pid, p.ticks / TICKS_PER_SECOND)
  }
  return seconds
}

/** The pid of the Temporal dev server this process started (not its shell wrapper), if any. */
export function temporalServerPid(): number | undefined {
  return descendants(allProcs(), process.pid).find(
    (p) => p.cmdline.includes('server start-dev') && !p.cmdline.startsWith('bash')
  )?.pid
}

/** The pids of this process's worker processes (`worker/main.ts`). */
export function workerPids(): number[] {
  return descendants(allProcs(), process.pid)
    .filter((p) => p.cmdline.includes('worker/main.ts'))
    .map((p) => p.pid)
}
