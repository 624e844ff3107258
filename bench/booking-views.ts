/**
 * @module The `views` phase of bench/booking.bench.ts: bookings at a fixed rate beside closed loops of
 * `GET /v1/appointments/{id}/workflow` (issue 22: booking latency within 2× of its value without the views). The
 * booking load alternates between segments with the loops on and off, so whatever else weighs on the machine weighs on
 * both sides alike, and the ratio is of figures measured in the same run.
 */
import { startViewLoops, type ViewLoopsTally } from '../test/support/view-loops.ts'
import type { LoadResult } from './webhook-peer.ts'
import { percentile } from './webhook-bench-kit.ts'

export interface ViewsPhaseOptions {
  apiUrl: string
  token: string
  /** Appointments whose workflows the loops view, in turn. */
  viewed: string[]
  loops: number
  rate: number
  /** Segments of bookings, half with the loops on; each `segmentSeconds` long. */
  segments: number
  segmentSeconds: number
  /** Bookings at `rate` for `seconds`, open loop. */
  book(rate: number, seconds: number): Promise<LoadResult>
  log(message: string): void
}

interface Side {
  requests: number
  statuses: Record<string, number>
  p50: number
  p95: number
  p99: number
}

export interface ViewsPhaseResult {
  rate: number
  loops: number
  segments: number
  segmentSeconds: number
  without: Side
  withViews: Side
  views: ViewLoopsTally
  /** Views answered per second while the loops were on. */
  viewsPerSecond: number
  measuredAt: string
}

function side(results: LoadResult[]): Side {
  const latencies = results.flatMap((r) => r.latencies.filter(Number.isFinite)).sort((a, b) => a - b)
  const statuses: Record<string, number> = {}
  for (const result of results)
    for (const [status, n] of Object.entries(result.statuses)) statuses[status] = (statuses[status] ?? 0) + n
  return {
    requests: latencies.length,
    statuses,
    p50: percentile(latencies, 50),
    p95: percentile(latencies, 95),
    p99: percentile(latencies, 99),
  }
}

export async function measureBookingsBesideViews(options: ViewsPhaseOptions): Promise<ViewsPhaseResult> {
  const { rate, segments, segmentSeconds } = options
  const log = (message: string) => options.log(message)
  const loops = startViewLoops({
    baseUrl: options.apiUrl,
    token: options.token,
    appointmentIds: options.viewed,
    count: options.loops,
  })
  const without: LoadResult[] = []
  const withViews: LoadResult[] = []
  let onMs = 0
  try {
    for (let segment = 0; segment < segments; segment++) {
      // Pairs of segments, each pair in the other order, so neither side always follows the other.
      const on = segment % 4 === 1 || segment % 4 === 2
      await loops.set(on)
      const started = performance.now()
      const result = await options.book(rate, segmentSeconds)
      if (on) onMs += performance.now() - started
      ;(on ? withViews : without).push(result)
      const sorted = result.latencies.filter(Number.isFinite).sort((a, b) => a - b)
      log(
        `views ${on ? 'on ' : 'off'}: bookings p50 ${percentile(sorted, 50).toFixed(0)} ` +
          `p95 ${percentile(sorted, 95).toFixed(0)} ms, ${JSON.stringify(result.statuses)}`
      )
    }
  } finally {
    await loops.stop()
  }
  const views = loops.tally()
  return {
    rate,
    loops: options.loops,
    segments,
    segmentSeconds,
    without: side(without),
    withViews: side(withViews),
    views,
    viewsPerSecond: views.views / (onMs / 1000),
    measuredAt: new Date().toISOString(),
  }
}

export function renderViewsReport(
  result: ViewsPhaseResult,
  context: { database: string; workflowStart: string; commit: string; node: string }
): string {
  const { without, withViews } = result
  const ratio = (a: number, b: number) => `${(a / b).toFixed(2)}×`
  const row = (name: string, s: Side) =>
    `| ${name} | ${s.requests} | ${JSON.stringify(s.statuses)} | ${s.p50.toFixed(0)} / ${s.p95.toFixed(0)} / ` +
    `${s.p99.toFixed(0)} |`
  return [
    `Measured ${result.measuredAt.slice(0, 16).replace('T', ' ')} UTC, code at \`${context.commit}\`, Node ` +
      `${context.node}, ${context.database}, booking workflows started ${context.workflowStart}. ` +
      `\`POST /v1/appointments\` open loop at ${result.rate}/s from the peer process, in ${result.segments} segments of ` +
      `${result.segmentSeconds} s alternating between ${result.loops} closed loops of ` +
      '`GET /v1/appointments/{id}/workflow` (three appointments viewed in turn, from a process at nice 19) on and off; ' +
      'the worker at nice 10 as `npm start` runs it. Command: ' +
      `\`${context.database === 'postgresql' ? 'BENCH_DATABASE_URL=postgresql://... ' : ''}` +
      `${context.workflowStart.startsWith('at once') ? 'BENCH_BOOKING_WORKFLOW_START=immediate ' : ''}` +
      'BENCH_PHASES=views npm run bench:booking`.',
    '',
    '| bookings | requests | answers | p50 / p95 / p99 ms |',
    '|---|---|---|---|',
    row('views off', without),
    row('views on', withViews),
    '',
    `Booking latency with the views ÷ without (target ≤ 2×): **p50 ${ratio(withViews.p50, without.p50)}, ` +
      `p95 ${ratio(withViews.p95, without.p95)}**. Views answered: ${result.views.views} ` +
      `(${JSON.stringify(result.views.statuses)}), ${result.viewsPerSecond.toFixed(0)}/s while on, p50 / p95 ` +
      `${result.views.p50.toFixed(0)} / ${result.views.p95.toFixed(0)} ms.`,
  ].join('\n')
}
