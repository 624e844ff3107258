/**
 * @module Benchmark: what the Temporal cluster costs doing nothing, by number of history shards (issue 75; the choice
 * of 16 in docs/operations.md, "History shards"). For each of BENCH_SHARDS (16,512), a new cluster (`npm run
 * start:cluster`'s, one API and one worker) is left idle for BENCH_SETTLE_SECONDS (30) and then measured for
 * BENCH_SECONDS (60): CPU by part (each Temporal service, PostgreSQL's backends for Temporal's databases and for the
 * platform's, ours) and Temporal's connections to PostgreSQL. Written to docs/benchmarks.md, "The idle cluster by
 * history shards".
 *
 *   npm run bench:cluster-idle
 */
import os from 'node:os'
import pg from 'pg'
import { writeBenchmarkSection } from '../scripts/lib/benchmark-report.ts'
import { startClusterTopology } from '../test/support/cluster-topology.ts'
import { clusterBenchServer, clusterParts, cpuByPart } from './cluster-parts.ts'
import { cpuSecondsOf } from './process-cpu.ts'
import { sleep } from './webhook-bench-kit.ts'

const SHARDS = (process.env.BENCH_SHARDS ?? '16,512').split(',').map(Number)
const SETTLE_SECONDS = Number(process.env.BENCH_SETTLE_SECONDS ?? 30)
const SECONDS = Number(process.env.BENCH_SECONDS ?? 60)

const log = (message: string) => process.stderr.write(`[bench ${new Date().toISOString().slice(11, 19)}] ${message}\n`)

const server = await clusterBenchServer()

async function temporalConnections(): Promise<number> {
  const client = new pg.Client({ connectionString: server.url })
  await client.connect()
  try {
    const { rows } = await client.query<{ n: number }>(
      "SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname LIKE 'temporal%'"
    )
    return rows[0]!.n
  } finally {
    await client.end()
  }
}

const results: Array<{ shards: number; startSeconds: number; cpu: Record<string, number>; connections: number }> = []
try {
  for (const shards of SHARDS) {
    const began = Date.now()
    const topology = await startClusterTopology({
      serverUrl: server.url,
      apis: 1,
      workers: 1,
      env: { TEMPORAL_HISTORY_SHARDS: String(shards), LOG_LEVEL: 'error' },
    })
    const startSeconds = (Date.now() - began) / 1000
    try {
      await sleep(SETTLE_SECONDS * 1000)
      const roles = await clusterParts(server.url, topology)
      const before = cpuSecondsOf(roles.keys())
      await sleep(SECONDS * 1000)
      const cpu = cpuByPart(roles, before, cpuSecondsOf(roles.keys()))
      const connections = await temporalConnections()
      results.push({ shards, startSeconds, cpu, connections })
      log(
        `${shards} shards: up in ${startSeconds.toFixed(0)} s, CPU s ${JSON.stringify(cpu)}, ${connections} connections`
      )
    } finally {
      await topology.stop()
    }
  }
} finally {
  await server.stop()
}

const parts = [...new Set(results.flatMap((r) => Object.keys(r.cpu)))].sort()
const percent = (seconds: number | undefined) => `${(((seconds ?? 0) / SECONDS) * 100).toFixed(1)} %`
const report = [
  `Run ${new Date().toISOString().slice(0, 16)} UTC on ${os.cpus().length} cores; a new cluster for each figure (Server ` +
    `1.32.0 on PostgreSQL 16, one API and one worker of ours, nothing booked), idle for ${SETTLE_SECONDS} s and then ` +
    `measured for ${SECONDS} s. CPU as a share of one core.`,
  '',
  `| part | ${results.map((r) => `${r.shards} shards`).join(' | ')} |`,
  `|---|${results.map(() => '---').join('|')}|`,
  ...parts.map((part) => `| ${part} | ${results.map((r) => percent(r.cpu[part])).join(' | ')} |`),
  `| **all** | ${results.map((r) => `**${percent(Object.values(r.cpu).reduce((a, b) => a + b, 0))}**`).join(' | ')} |`,
  `| Temporal's connections to PostgreSQL | ${results.map((r) => r.connections).join(' | ')} |`,
  `| start, until the balancer answered (s) | ${results.map((r) => r.startSeconds.toFixed(0)).join(' | ')} |`,
].join('\n')
process.stdout.write(`${report}\n`)
await writeBenchmarkSection('The idle cluster by history shards', report)
