/**
 * @module The booking benchmark's figures (bench/booking.bench.ts) and the section of docs/benchmarks.md it writes:
 * the issue's targets first, then every run (the floor and bookings at the fixed rate, each step of the search for
 * the highest sustainable rate) with its latency, CPU per booking by process and Temporal actions per booking.
 */
import { APPOINTMENT_WORKFLOW } from '../common/appointments/appointment-workflow-contract.ts'
import { databaseInApi, describeDatabase, type EmbeddedPlacement } from './bench-database.ts'
import type { SettleFigures } from './booking-settle.ts'
import type { CpuRole } from './process-cpu.ts'
import type { HistoryActions } from './temporal-actions.ts'
import type { WindowFigures } from './webhook-results.ts'

/** One open-loop run of the floor or of bookings. */
export interface BookingRun {
  kind: 'floor' | 'booking'
  rate: number
  seconds: number
  requests: number
  statuses: Record<string, number>
  errors: string[]
  p50: number
  p95: number
  p99: number
  max: number
  /** How long the client took to send them all (more than `seconds`: it could not keep to the schedule). */
  sendSeconds: number
  /** Booking workflows: start → waiting on their timer (the worker's first tasks and activity). */
  settle?: SettleFigures
  /** Whether the rate was sustained (booking.bench.ts `sustained`; for the floor, without the settle rule). */
  sustained?: boolean
  /** Why not, when it was not. */
  notSustainedBecause?: string[]
  window: WindowFigures
}

export interface BookingResults {
  database: 'postgresql' | 'pglite'
  /** Where the embedded PGlite ran (bench-database.ts); absent for PostgreSQL and for figures from before it was kept. */
  placement?: EmbeddedPlacement
  node: string
  /** The Temporal dev server measured with (`CLI 1.9.1 (Server 1.32.0, UI 2.54.1)`); absent in figures from CLI 1.5.1. */
  temporal?: string
  /** Commit of the code measured (and whether the tree had changes). */
  commit: string
  /** The fixed-rate pair: floor and bookings at the same rate, one after the other. */
  fixed?: { floor: BookingRun; booking: BookingRun }
  /** Steps of the search, in order; the last one failed (or the list ran out). */
  search?: BookingRun[]
  /** The floor's own steps at the search's rates (phase `floor-search`); the last one failed (or the list ran out). */
  floorSearch?: BookingRun[]
  /** The processes with nothing to do, before the runs. */
  idle?: WindowFigures
  /** p95 bound of a sustainable step (ms). */
  sustainableP95Ms: number
  /** BOOKING_WORKFLOW_START of the run (absent in figures from before deferred starts: immediate). */
  workflowStart?: 'deferred' | 'immediate'
}

const ROLES: Array<[CpuRole, string]> = [
  ['api', 'API'],
  ['worker', 'worker'],
  ['temporal', 'Temporal'],
  ['postgres', 'PostgreSQL'],
  ['peer', 'client'],
]

const ms = (value: number | undefined) => (value !== undefined && Number.isFinite(value) ? value.toFixed(0) : '—')
const verdict = (met: boolean) => (met ? 'met' : '**NOT met**')
const when = (w: WindowFigures) => `${w.at.slice(11, 16)} UTC, load ${w.load[0].toFixed(1)} → ${w.load[1].toFixed(1)}`

const bookingActions = (w: WindowFigures): HistoryActions | undefined => w.actions.bookingWorkflow
const actionsPer = (run: BookingRun) => {
  const a = bookingActions(run.window)
  if (!a || run.requests === 0) return '—'
  const per = (n: number) => (n / run.requests).toFixed(2)
  const others = Object.entries(run.window.actions)
    .filter(([type]) => type !== APPOINTMENT_WORKFLOW)
    .map(([type, x]) => `${type} ${x.total}`)
  return (
    `${per(a.total)} (${per(a.starts)} starts, ${per(a.activities)} activities, ${per(a.timers)} timers, ` +
    `${per(a.signals)} signals${a.markers ? `, ${per(a.markers)} local activities` : ''})` +
    (others.length ? `; other workflows in the interval: ${others.join(', ')}` : '')
  )
}

/** CPU ms per request by process, and the total. */
function cpuPer(run: BookingRun, databaseInApiProcess: boolean): string[] {
  const per = (seconds: number) => ((seconds * 1000) / Math.max(1, run.requests)).toFixed(1)
  const cells = ROLES.map(([role]) =>
    databaseInApiProcess && role === 'postgres' ? 'in API' : per(run.window.cpu[role])
  )
  const total = ROLES.filter(([role]) => role !== 'peer').reduce((n, [role]) => n + run.window.cpu[role], 0)
  return [...cells, per(total)]
}

function runRow(run: BookingRun, databaseInApiProcess: boolean, floor?: BookingRun): string {
  const answers = Object.entries(run.statuses)
    .map(([code, n]) => `${n} × ${code}`)
    .join(', ')
  const ratio = floor ? `${(run.p50 / floor.p50).toFixed(2)}× / ${(run.p95 / floor.p95).toFixed(2)}×` : '—'
  const settle = run.settle
    ? `${ms(run.settle.p50)} / ${ms(run.settle.p95)} (${run.settle.settled} of ${run.settle.started}` +
      `${run.settle.deferred ? `; ${run.settle.deferred} deferred` : ''})`
    : '—'
  const sustained =
    run.sustained === undefined ? '' : run.sustained ? 'yes' : `no: ${(run.notSustainedBecause ?? []).join('; ')}`
  return (
    `| ${run.kind} | ${run.rate} | ${run.requests} (${answers}) | ${ms(run.p50)} / ${ms(run.p95)} / ${ms(run.p99)} / ${ms(run.max)} | ` +
    `${ratio} | ${settle} | ${cpuPer(run, databaseInApiProcess).join(' | ')} | ${sustained} | ${when(run.window)} |`
  )
}

export function renderBookingReport(r: BookingResults): string {
  const pglite = r.database === 'pglite'
  const inApi = databaseInApi(r.database, r.placement)
  const out: string[] = []
  out.push(
    `Machine: 2 shared CPUs; ${describeDatabase(r.database, r.placement)}, ` +
      `Temporal ${r.temporal ?? 'CLI 1.5.1'} dev server, Node ${r.node}, code at ${r.commit}. The API runs in the benchmark's process, the ` +
      'worker in its own (`worker/main.ts`, nice 10 as `npm start` runs it), the open-loop client in a third ' +
      '(bench/webhook-peer.ts): each request is sent at its time whatever the earlier ones are doing, over keep-alive ' +
      'connections, and timed from sending to the end of the answer. Every booking has its own slot: 64 providers, each ' +
      'with its own child, slots an hour apart from 3 days ahead. The **floor** is one INSERT of an appointment-like row ' +
      'plus one start of a trivial workflow (on a task queue no worker polls) on the same database, pool and Temporal ' +
      'server, served over HTTP by the same process and driven by the same client (bench/booking-floor.ts). ' +
      `Command: \`npm run bench:booking\`${pglite ? '' : ' with `BENCH_DATABASE_URL`'}` +
      `${r.workflowStart === 'immediate' ? ' and `BENCH_BOOKING_WORKFLOW_START=immediate`' : ''}.`,
    '',
    r.workflowStart === 'immediate'
      ? "Booking workflows start **immediately** (`BOOKING_WORKFLOW_START=immediate`): each booking's first workflow " +
          'task (a local activity reading the appointment, then the reminder timer) runs during the run.'
      : "Booking workflows start **deferred** (`BOOKING_WORKFLOW_START=deferred`, the default): each booking's start is " +
          'recorded in Temporal just after its answer (issue 48; the floor waits for its start) with a start delay ' +
          'ending 10 minutes before its first reminder (2 days before the appointment here), so its first task (the ' +
          'local activity and the timer) runs then, outside the run; settle is the start itself.'
  )
  const rows: string[] = []
  if (r.fixed) {
    const { floor, booking } = r.fixed
    const ratio = booking.p95 / floor.p95
    rows.push(
      `| p95 at ${booking.rate} bookings/s for ${booking.seconds} s ÷ the floor's at the same rate, in turns | ≤ 1.5× (issue 48) | ` +
        `${ratio.toFixed(2)}× (${ms(booking.p95)} / ${ms(floor.p95)} ms) | ${verdict(ratio <= 1.5)} |`
    )
  }
  if (r.search?.length) {
    const best = r.search.filter((run) => run.sustained).reduce((n, run) => Math.max(n, run.rate), 0)
    rows.push(
      `| highest sustainable rate (steps: ${r.search.map((run) => `${run.rate}${run.sustained ? '' : '✗'}`).join(', ')}) | ≥ 150 bookings/s (issue 48) | ` +
        `${best || 'none'} bookings/s | ${verdict(best >= 150)} |`
    )
  }
  if (r.floorSearch?.length) {
    const steps = r.floorSearch
    const best = steps.filter((run) => run.sustained).reduce((n, run) => Math.max(n, run.rate), 0)
    rows.push(
      `| the floor's own highest sustainable rate (one INSERT and one workflow start; steps: ${steps.map((run) => `${run.rate}${run.sustained ? '' : '✗'}`).join(', ')}) | — | ` +
        `${best || 'none'} requests/s | ${best >= 150 ? '150/s fits beside a workflow start' : 'a booking that starts a workflow cannot reach 150/s here'} |`
    )
  }
  out.push('', '| figure | target | measured | |', '|---|---|---|---|', ...rows)
  out.push(
    '',
    `A rate is **sustained** when, over its step, every booking is answered 201, the p95 latency is at most ` +
      `${r.sustainableP95Ms} ms, the client kept to its schedule (sending took at most 1 s longer than planned) and the ` +
      `worker kept up: every booking workflow started in the step had settled (its first tasks and activity done, ` +
      `waiting on its timer) within 5 s of the step's end, with a settle p95 of at most ${r.sustainableP95Ms} ms. ` +
      'Settle: start → the workflow waits on its timer, p50 / p95 ms. CPU: ms per request, by process; the total leaves ' +
      "out the client. Actions: billed Temporal actions per booking in the booking workflows' histories.",
    '',
    '| run | requests/s | requests (answers) | p50 / p95 / p99 / max ms | ÷ floor p50 / p95 | settle p50 / p95 ms | ' +
      `${ROLES.map(([, name]) => `CPU ${name}`).join(' | ')} | CPU total | sustained | measured |`,
    `|---|---|---|---|---|---|${ROLES.map(() => '---|').join('')}---|---|---|`
  )
  if (r.fixed) out.push(runRow(r.fixed.floor, inApi), runRow(r.fixed.booking, inApi, r.fixed.floor))
  for (const run of r.search ?? []) out.push(runRow(run, inApi))
  for (const run of r.floorSearch ?? []) out.push(runRow(run, inApi))
  if (r.idle) {
    const idle = r.idle
    const perSecond = (role: CpuRole) => ((idle.cpu[role] * 1000) / idle.seconds).toFixed(0)
    out.push(
      '',
      `With nothing to do (${idle.seconds.toFixed(0)} s before the runs, ${when(idle)}), the processes use, in CPU ms per ` +
        `second: ${ROLES.filter(([role]) => !(inApi && role === 'postgres'))
          .map(([role, name]) => `${name} ${perSecond(role)}`)
          .join(', ')} (the webhook pumps polling, the sweeps). ` +
        'The CPU per request above includes this share: at 10 requests/s, a tenth of each figure per request.'
    )
  }
  const actionRuns = [...(r.fixed ? [r.fixed.booking] : []), ...(r.search ?? [])]
  if (actionRuns.length) {
    out.push(
      '',
      "Temporal actions per booking (booking workflows' histories; the floor's is one start by construction):",
      '',
      ...actionRuns.map((run) => `- ${run.rate}/s: ${actionsPer(run)}`)
    )
  }
  const errors = [...(r.fixed ? [r.fixed.floor, r.fixed.booking] : []), ...(r.search ?? []), ...(r.floorSearch ?? [])]
    .flatMap((run) => run.errors)
    .slice(0, 5)
  if (errors.length) out.push('', `Answers other than 201 (first few): ${errors.map((e) => `\`${e}\``).join('; ')}.`)
  return out.join('\n')
}
