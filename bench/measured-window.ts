/**
 * @module A measured interval of a benchmark that runs the API in-process and the worker and the Temporal dev server as
 * child processes: CPU by process, the load average, and the Temporal actions the interval caused (from the histories
 * on the benchmark's task queue, and from the dev server's own counter). Shared by bench/webhooks.bench.ts and
 * bench/booking.bench.ts.
 */
import os from 'node:os'
import type { Client } from '@temporalio/client'
import type { Db } from '../infra/db.ts'
import { cpuBetween, cpuSnapshot } from './process-cpu.ts'
import { actionsBetween, historyActions, serverActions } from './temporal-actions.ts'
import type { WindowFigures } from './webhook-results.ts'

/** A measured interval: CPU by process, load, Temporal actions; closed at `to` (default now). */
export interface MeasuredWindow {
  from: number
  close(to?: number): Promise<WindowFigures>
}

export interface WindowDeps {
  db: Db
  databaseKind: 'postgresql' | 'pglite'
  temporal: Client
  namespace: string
  /** The task queue whose workflows' histories are counted. */
  taskQueue: string
  /** The dev server's metrics endpoint (temporal-actions.ts `findMetricsUrl`); without it, histories only. */
  metricsUrl?: string
}

/** Creates the function that opens measured intervals. */
export function windowOpener({ db, databaseKind, temporal, namespace, taskQueue, metricsUrl }: WindowDeps) {
  /** This database's server processes (its connections), for their CPU; none for the embedded PGlite. */
  async function postgresPids(): Promise<number[]> {
    if (databaseKind !== 'postgresql') return []
    const rows = await db.$queryRawUnsafe<Array<{ pid: number }>>(
      'SELECT pid FROM pg_stat_activity WHERE datname = current_database()'
    )
    return rows.map((row) => row.pid)
  }

  /** Opens a measured interval: CPU, load and the server's action counter now; closing it adds the histories. */
  return async function openWindow(): Promise<MeasuredWindow> {
    const from = Date.now()
    const cpu = cpuSnapshot(await postgresPids())
    const load = os.loadavg()[0]!
    const actions = metricsUrl ? await serverActions(metricsUrl, namespace).catch(() => undefined) : undefined
    return {
      from,
      async close(to = Date.now()): Promise<WindowFigures> {
        const cpuAfter = cpuSnapshot(await postgresPids())
        const [load1, load5] = os.loadavg()
        const actionsAfter = metricsUrl ? await serverActions(metricsUrl, namespace).catch(() => undefined) : undefined
        const byType = await historyActions(temporal, { query: `TaskQueue = "${taskQueue}"`, from, to })
        return {
          at: new Date(from).toISOString(),
          seconds: (to - from) / 1000,
          load: [load, load1!, load5!],
          cpu: cpuBetween(cpu, cpuAfter),
          actions: Object.fromEntries(byType),
          serverActions: actions && actionsAfter ? actionsBetween(actions, actionsAfter) : undefined,
        }
      },
    }
  }
}
