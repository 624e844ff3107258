/**
 * @module The parts of a running cluster topology (test/support/cluster-topology.ts) whose CPU the cluster benchmarks
 * report: our APIs and workers, the balancer and Temporal's services from processes.json, the development server
 * when one stands in for the cluster, the benchmark's load process, and PostgreSQL's backends split by the database
 * they serve.
 */
import pg from 'pg'
import { startLocalTestServer } from '../scripts/db/local-test-server.ts'
import { obtainTemporalServer } from '../scripts/temporal/cluster.ts'
import type { ClusterTopology } from '../test/support/cluster-topology.ts'
import { cpuSnapshot } from './process-cpu.ts'

/**
 * What a cluster benchmark runs on: the Temporal Server built (cached after the first time) and a PostgreSQL server,
 * BENCH_DATABASE_URL's or one of its own. TEMPORAL_ADDRESS is dropped: the topologies start their own Temporal.
 */
export async function clusterBenchServer(): Promise<{ url: string; stop(): Promise<void> }> {
  delete process.env.TEMPORAL_ADDRESS
  await obtainTemporalServer()
  return process.env.BENCH_DATABASE_URL
    ? { url: process.env.BENCH_DATABASE_URL, stop: async () => undefined }
    : startLocalTestServer()
}

/** Which part a PostgreSQL backend serves, by its database: the platform's, Temporal's, or none (the server's own). */
async function postgresParts(serverUrl: string, platformDatabase: string): Promise<Map<number, string>> {
  const client = new pg.Client({ connectionString: serverUrl })
  await client.connect()
  try {
    const { rows } = await client.query<{ pid: number; datname: string | null }>(
      'SELECT pid, datname FROM pg_stat_activity WHERE pid <> pg_backend_pid()'
    )
    return new Map(
      rows.map((r) => [
        r.pid,
        r.datname === platformDatabase
          ? 'postgres: platform'
          : r.datname?.startsWith('temporal')
            ? 'postgres: Temporal'
            : 'postgres: other',
      ])
    )
  } finally {
    await client.end()
  }
}

/**
 * Every process of the topology by part, read now (a process that restarts later is not in it).
 * @param serverUrl - the PostgreSQL server the topology runs on (a role that may read pg_stat_activity)
 */
export async function clusterParts(
  serverUrl: string,
  topology: ClusterTopology,
  devServerPid?: number
): Promise<Map<number, string>> {
  const byPid = await postgresParts(serverUrl, new URL(topology.databaseUrl).pathname.slice(1))
  for (const p of await topology.processes()) byPid.set(p.pid, p.role)
  if (devServerPid !== undefined) byPid.set(devServerPid, 'temporal dev server')
  for (const [pid, { role }] of cpuSnapshot()) if (role === 'peer') byPid.set(pid, 'load and receivers')
  return byPid
}

/** CPU seconds by part between two readings of the same processes (one that ended in between is not counted). */
export function cpuByPart(
  roles: Map<number, string>,
  before: Map<number, number>,
  after: Map<number, number>
): Record<string, number> {
  const used: Record<string, number> = {}
  for (const [pid, seconds] of after) {
    const part = roles.get(pid)!
    used[part] = (used[part] ?? 0) + seconds - (before.get(pid) ?? seconds)
  }
  return used
}
