/**
 * @module The scaling benchmark's section of docs/benchmarks.md (bench/cluster-scaling.bench.ts): the highest sustained
 * rate of each configuration, its ratio to the development server's with the same instances, and the CPU per booking
 * of each part at the first rate.
 */

/** One rate of one configuration. */
export interface StepResult {
  rate: number
  bookings: number
  statuses: Record<string, number>
  p95: number
  deliveriesPerSecond: number
  /** From the last booking sent to its last delivery. */
  deliveryLagMs: number
  /** CPU ms per booking answered 201, by part (api, worker, balancer, temporal-history, postgres: platform, ...). */
  cpuPerBookingMs: Record<string, number>
  sustained: boolean
}

export interface ConfigResult {
  /** `dev-1`, `cluster-2`: Temporal's kind and the number of APIs (= workers). */
  name: string
  kind: 'dev' | 'cluster'
  instances: number
  steps: StepResult[]
}

/** The order parts are listed in, ours first, then Temporal's, then the database's. */
const PART_ORDER = [
  'api',
  'worker',
  'balancer',
  'temporal dev server',
  'temporal-frontend',
  'temporal-history',
  'temporal-matching',
  'temporal-worker',
  'postgres: platform',
  'postgres: Temporal',
  'postgres: other',
  'load and receivers',
]

const highest = (config: ConfigResult) => config.steps.filter((s) => s.sustained).at(-1)
const label = (config: ConfigResult) =>
  `${config.kind === 'dev' ? 'dev server' : 'cluster'}, ${config.instances} API${config.instances > 1 ? 's' : ''} + ${config.instances} worker${config.instances > 1 ? 's' : ''}`

export function renderScalingReport(
  results: ConfigResult[],
  run: { stepSeconds: number; endpoints: number; machine: string }
): string {
  const lines = [
    `Run ${new Date().toISOString().slice(0, 16)} UTC on ${run.machine}, everything on this one machine: PostgreSQL 16, ` +
      `the load and the receivers (one process), HAProxy, our APIs and workers, and Temporal. Each rate is sent for ` +
      `${run.stepSeconds} s (open loop) with each \`booking.created\` to ${run.endpoints} endpoints; a rate is sustained when ` +
      'every answer is 201, p95 ≤ 1 s, and its deliveries have all arrived within 10 s of the last booking.',
    '',
    '| configuration | highest rate sustained (bookings/s) | deliveries/s there | p95 there (ms) | ratio to the dev server with as many instances | first rate not sustained, why |',
    '|---|---|---|---|---|---|',
  ]
  for (const config of results) {
    const top = highest(config)
    const twin = results.find((r) => r.kind === 'dev' && r.instances === config.instances)
    const twinTop = twin ? highest(twin) : undefined
    const failed = config.steps.find((s) => !s.sustained)
    const why = failed
      ? `${failed.rate}/s: ${Object.entries(failed.statuses)
          .map(([status, n]) => `${n}× ${status}`)
          .join(
            ', '
          )}, p95 ${failed.p95.toFixed(0)} ms, delivery lag ${Number.isFinite(failed.deliveryLagMs) ? `${(failed.deliveryLagMs / 1000).toFixed(1)} s` : 'over 120 s'}`
      : 'none up to the last rate tried'
    lines.push(
      `| ${label(config)} | ${top?.rate ?? '< ' + config.steps[0]!.rate} | ${top ? top.deliveriesPerSecond.toFixed(0) : '-'} | ` +
        `${top ? top.p95.toFixed(0) : '-'} | ${config.kind === 'dev' ? '1' : top && twinTop ? (top.rate / twinTop.rate).toFixed(2) : '-'} | ${why} |`
    )
  }
  const first = results.map((r) => r.steps[0]).filter((s) => s !== undefined)
  const parts = PART_ORDER.filter((part) => first.some((s) => (s.cpuPerBookingMs[part] ?? 0) > 0))
  lines.push(
    '',
    `CPU per booking (ms), at ${results[0]?.steps[0]?.rate ?? '?'} bookings/s, from the step's start until its last ` +
      'delivery arrived (all processes of a part together: two APIs are one `api` figure):',
    '',
    `| part | ${results.map(label).join(' | ')} |`,
    `|---|${results.map(() => '---').join('|')}|`
  )
  for (const part of parts) {
    lines.push(`| ${part} | ${results.map((r) => (r.steps[0]?.cpuPerBookingMs[part] ?? 0).toFixed(1)).join(' | ')} |`)
  }
  const total = (s: StepResult | undefined) =>
    s ? Object.entries(s.cpuPerBookingMs).reduce((n, [k, v]) => (k === 'load and receivers' ? n : n + v), 0) : 0
  lines.push(`| **all but the load** | ${results.map((r) => `**${total(r.steps[0]).toFixed(1)}**`).join(' | ')} |`)
  return lines.join('\n')
}
