/**
 * @module The section of docs/benchmarks.md the webhook benchmark writes, built from every scenario's latest figures
 * (bench/webhook-results.ts): the issue's targets first, then each scenario's table.
 */
import { databaseInApi, describeDatabase } from './bench-database.ts'
import type { CpuRole } from './process-cpu.ts'
import type { HistoryActions } from './temporal-actions.ts'
import type { WebhookResults, WindowFigures } from './webhook-results.ts'

/**
 * The earlier design's Temporal actions per delivery (one `webhookDeliveryWorkflow` each: its start and its local
 * activity's marker), as last measured: that design's workflows now hand their deliveries to the queue
 * (domain/webhooks/legacy-handover.ts), so it cannot be measured again and the baseline is this recorded figure.
 */
const EARLIER_DESIGN_ACTIONS = 2
const EARLIER_DESIGN_MEASURED = '2026-11-23, docs/benchmarks.md'

const ms = (value: number | undefined) => (value !== undefined && Number.isFinite(value) ? value.toFixed(0) : '—')
const s = (value: number) => (Number.isFinite(value) ? (value / 1000).toFixed(1) : '—')
const verdict = (met: boolean) => (met ? 'met' : '**NOT met**')
const when = (w: { at: string; load: [number, number, number] }) =>
  `${w.at.slice(0, 16).replace('T', ' ')} UTC, load ${w.load[0].toFixed(1)} → ${w.load[1].toFixed(1)}`

const totalOf = (w: WindowFigures) => Object.values(w.actions).reduce((n, a) => n + a.total, 0)
const serverTotal = (w: WindowFigures) =>
  w.serverActions ? Object.values(w.serverActions).reduce((n, v) => n + v, 0) : undefined
const perDelivery = (actions: number | undefined, deliveries: number) =>
  actions === undefined || deliveries === 0 ? '—' : (actions / deliveries).toFixed(4)
const breakdown = (a: HistoryActions) =>
  `${a.starts} starts, ${a.activities} activities, ${a.timers} timers, ${a.signals} signals` +
  (a.markers ? `, ${a.markers} local activities` : '')
const byType = (w: WindowFigures) =>
  Object.entries(w.actions)
    .map(([type, a]) => `${type}: ${breakdown(a)}`)
    .join('; ') || 'none'
const serverBreakdown = (counts?: Record<string, number>) =>
  counts
    ? Object.entries(counts)
        .sort(([, a], [, b]) => b - a)
        .map(([type, n]) => `${type.replace(/^(grpc|command)_/, '')} ${n}`)
        .join(', ')
    : 'not read'

const ROLES: Array<[CpuRole, string]> = [
  ['api', 'API (+ event recording)'],
  ['worker', 'worker'],
  ['temporal', 'Temporal dev server'],
  ['postgres', 'PostgreSQL (this database)'],
  ['peer', 'receivers + client'],
]

export function renderWebhookReport(r: WebhookResults): string {
  const pglite = r.database === 'pglite'
  const inApi = databaseInApi(r.database, r.placement)
  const out: string[] = []
  out.push(
    `Machine: 2 shared CPUs; ${describeDatabase(r.database, r.placement)}, ` +
      `Temporal ${r.temporal ?? 'CLI 1.5.1'} dev server, Node ${r.node}. The API (with the bench's event recording) runs in one process, the ` +
      `worker in another (\`worker/main.ts\`, at CPU priority nice 10 as \`npm start\` runs it: \`WORKER_CPU_NICE\`), the receivers and the HTTP client in a third (bench/webhook-peer.ts), ` +
      'all on loopback; pump settings are the defaults (2 partitions, poll 100 ms, 512 attempts in flight per pump, a ' +
      "tenant's share 128 of them, 8 per endpoint, breaker after 5 failures). Latency runs from the commit of the event's transaction to the moment the " +
      'receiver has read the request. Each row gives when it was measured and the 1-minute load average at its start ' +
      'and end (other work shares the machine). Command: `npm run bench:webhooks`' +
      (pglite ? '' : ' with `BENCH_DATABASE_URL`') +
      '; one scenario alone: `BENCH_SCENARIOS=steady|api|failing|kill|sigterm`.'
  )

  // The issue's targets, each with the figure that decides it.
  const rows: string[] = []
  const one = r.steady?.['1']
  const twenty = r.steady?.['20']
  if (one)
    rows.push(
      `| p95 commit → receiver, 1 endpoint, ${one.rate} events/s | < 250 ms | ${ms(one.stats.p95)} ms | ${verdict(one.stats.p95 < 250)} |`
    )
  if (twenty)
    rows.push(
      `| p95 commit → receiver, 20 endpoints (${twenty.rate * 20} deliveries/s) | < 1000 ms | ${ms(twenty.stats.p95)} ms | ${verdict(twenty.stats.p95 < 1000)} |`
    )
  for (const run of [one, twenty].filter((x) => x !== undefined))
    rows.push(
      `| lost, ${run.endpoints} endpoint(s) (duplicates reported) | 0 | ${run.stats.lost} lost, ${run.stats.duplicates} duplicates | ${verdict(run.stats.lost === 0)} |`
    )
  const failing = Object.values(r.failing ?? {})
  for (const run of failing)
    rows.push(
      `| p95 of the 19 healthy endpoints, one answering 500, ${run.rate} events/s | < 1000 ms | ${ms(run.healthy.p95)} ms (${run.healthy.lost} lost) | ${verdict(run.healthy.p95 < 1000 && run.healthy.lost === 0)} |`
    )
  if (failing.length)
    rows.push(
      `| Temporal actions of the failing endpoint, by event rate | does not grow with the rate | ${failing.map((f) => `${f.rate}/s: ${f.failing.actions.total}`).join('; ')} | ${verdict(failing.every((f) => f.failing.actions.total <= 10))} (a handful each) |`
    )
  for (const [label, run] of [
    ['1 endpoint', one],
    ['20 endpoints', twenty],
  ] as const) {
    if (!run) continue
    const per = totalOf(run.window) / Math.max(1, run.stats.delivered)
    rows.push(
      `| Temporal actions per successful delivery, ${label} (before: ${EARLIER_DESIGN_ACTIONS.toFixed(2)}) | ≤ 0.01 | ${per.toFixed(4)} (server counter, heartbeats included: ${perDelivery(serverTotal(run.window), run.stats.delivered)}) | ${verdict(per <= 0.01)} |`
    )
  }
  for (const a of Object.values(r.api ?? {})) {
    const ratio = a.subscribed.p95 / a.baseline.p95
    rows.push(
      `| \`POST /v1/${a.call ?? 'children'}\` p95 at ${a.rate}/s, 20 endpoints subscribed ÷ none | ≤ 1.5 | ${ratio.toFixed(2)} (${ms(a.subscribed.p95)} / ${ms(a.baseline.p95)} ms) | ${verdict(ratio <= 1.5)} |`
    )
  }
  if (r.sigterm) {
    rows.push(
      `| SIGTERM with a backlog: worker exits within its grace time | ≤ 10 s | ${s(r.sigterm.exitMs)} s | ${verdict(r.sigterm.exitMs <= 10_000)} |`
    )
    rows.push(
      `| SIGTERM, then restart: nothing lost, every delivery SUCCEEDED | 0 lost | ${r.sigterm.stats.lost} lost, ${r.sigterm.stats.duplicates} duplicates; rows ${JSON.stringify(r.sigterm.statuses)} | ${verdict(r.sigterm.stats.lost === 0 && !r.sigterm.statuses.PENDING && !r.sigterm.statuses.FAILED)} |`
    )
  }
  if (r.kill)
    rows.push(
      `| kill -9 mid-run, then restart: nothing lost | 0 lost | ${r.kill.stats.lost} lost, ${r.kill.stats.duplicates} duplicates; first delivery ${s(r.kill.firstDeliveryMs)} s after the kill | ${verdict(r.kill.stats.lost === 0)} |`
    )
  if (r.killApi)
    rows.push(
      `| kill -9 of the API mid-run, then restart: every committed payment's event delivered | 0 lost | ${r.killApi.stats.lost} lost, ${r.killApi.stats.duplicates} duplicates; ${r.killApi.events} events for ${r.killApi.payments} payments | ${verdict(r.killApi.stats.lost === 0 && r.killApi.events === r.killApi.payments)} |`
    )
  out.push('', '| figure | target | measured | |', '|---|---|---|---|', ...rows)

  if (one || twenty) {
    const runs = [one, twenty].filter((x) => x !== undefined)
    out.push(
      '',
      `**Steady load** (\`recordEvent\` in tenant units of work, open loop):`,
      '',
      '| endpoints | events (events/s) | deliveries | lost | duplicates | p50 / p95 / p99 / max ms | drain after the last event ms | recording transaction p50 / p95 ms | measured |',
      '|---|---|---|---|---|---|---|---|---|',
      ...runs.map(
        (x) =>
          `| ${x.endpoints} | ${x.events} (${x.eventsPerSecond.toFixed(1)}) | ${x.stats.delivered} of ${x.stats.expected} | ${x.stats.lost} | ${x.stats.duplicates} | ` +
          `${ms(x.stats.p50)} / ${ms(x.stats.p95)} / ${ms(x.stats.p99)} / ${ms(x.stats.max)} | ${ms(x.drainMs)} | ${ms(x.recordP50)} / ${ms(x.recordP95)} | ${when(x.window)} |`
      ),
      '',
      'Where the time goes, p50 / p95 ms: commit → delivery row (fan-out by a pump: includes waiting for its next poll); ' +
        'delivery row → attempt made (claim, a free slot of the endpoint); attempt made → read by the receiver (signing, POST).',
      '',
      '| endpoints | fan-out | to the attempt | POST |',
      '|---|---|---|---|',
      ...runs.map(
        (x) =>
          `| ${x.endpoints} | ${ms(x.stages.fanOut.p50)} / ${ms(x.stages.fanOut.p95)} | ${ms(x.stages.toAttempt.p50)} / ${ms(x.stages.toAttempt.p95)} | ${ms(x.stages.post.p50)} / ${ms(x.stages.post.p95)} |`
      )
    )
  }

  if (r.idle) {
    const idle = r.idle
    const perSecond = (role: CpuRole) => ((idle.cpu[role] * 1000) / idle.seconds).toFixed(1)
    const roles = ROLES.filter(([role]) => !(inApi && role === 'postgres'))
    out.push(
      '',
      'With nothing to deliver, the two pumps polling every 100 ms cost, per second: ' +
        roles.map(([role, name]) => `${name} ${perSecond(role)} ms`).join(', ') +
        ` (${when(idle)}). At 50 deliveries/s this fixed cost is a large part of the 1-endpoint CPU per delivery below.`
    )
  }

  if (failing.length) {
    out.push(
      '',
      '**One of 20 endpoints answering 500 throughout** (its breaker opens after 5 failures; its deliveries are then held ' +
        'with no request; one retry workflow probes on the backoff schedule):',
      '',
      '| events/s | healthy deliveries | lost | duplicates | healthy p50 / p95 / p99 ms | failing endpoint: requests it got / its deliveries / held at the end | its retry workflow, start of the run to its end | measured |',
      '|---|---|---|---|---|---|---|---|',
      ...failing.map(
        (f) =>
          `| ${f.rate} | ${f.healthy.delivered} of ${f.healthy.expected} | ${f.healthy.lost} | ${f.healthy.duplicates} | ${ms(f.healthy.p50)} / ${ms(f.healthy.p95)} / ${ms(f.healthy.p99)} | ` +
          `${f.failing.calls} / ${f.failing.deliveries} / ${f.failing.held} | ${f.failing.actions.total} actions (${breakdown(f.failing.actions)}) | ${when(f.window)} |`
      )
    )
  }

  const apiRuns = Object.values(r.api ?? {})
  if (apiRuns.length) {
    out.push(
      '',
      '**The emitting API call**, open loop from the peer process over keep-alive connections, after a 5 s warm-up; ' +
        'first with no endpoint subscribed, then with 20 subscribed to its event. `payments`: `POST /v1/payments` ' +
        "(the order locked, the payment, the order's amounts and `payment.succeeded` in one transaction; spread over " +
        '64 orders), nothing started in Temporal. `children`: `POST /v1/children` (`child.registered`); each request ' +
        "also enqueues the child's progress-follow-up workflow (started after commit by the outbox), the same in both " +
        'runs, so the call alone already costs a workflow start and its first tasks. CPU per request by process: API / ' +
        `worker / Temporal dev server / ${inApi ? 'receivers + client (PostgreSQL is in the API)' : 'PostgreSQL / receivers + client'}.`,
      '',
      '| call | requests/s | endpoints subscribed | requests | answers | p50 / p95 / p99 ms | p95 ÷ unsubscribed | CPU ms per request | its deliveries | measured |',
      '|---|---|---|---|---|---|---|---|---|---|',
      ...apiRuns.flatMap((a) =>
        [a.baseline, a.subscribed].map((x) => {
          const answers = Object.entries(x.statuses).map(([code, n]) => `${n} × ${code}`)
          const cpu = ROLES.filter(([role]) => !(inApi && role === 'postgres'))
            .map(([role]) => ((x.window.cpu[role] * 1000) / Math.max(1, x.requests)).toFixed(1))
            .join(' / ')
          const deliveries = x.subscribed
            ? `${a.deliveries.delivered} of ${a.deliveries.expected}, ${a.deliveries.duplicates} duplicates, p95 ${ms(a.deliveries.p95)} ms`
            : '—'
          const ratio = x.subscribed ? `${(x.p95 / a.baseline.p95).toFixed(2)}×` : '—'
          return `| ${a.call ?? 'children'} | ${a.rate} | ${x.subscribed} | ${x.requests} | ${answers.join(', ')} | ${ms(x.p50)} / ${ms(x.p95)} / ${ms(x.p99)} | ${ratio} | ${cpu} | ${deliveries} | ${when(x.window)} |`
        })
      )
    )
    const errors = apiRuns.flatMap((a) => [...a.baseline.errors, ...a.subscribed.errors]).slice(0, 5)
    if (errors.length) out.push('', `Answers other than 201 (first few): ${errors.map((e) => `\`${e}\``).join('; ')}.`)
  }

  // Temporal actions, every scenario that delivered.
  const actionRows: string[] = []
  actionRows.push(
    `| before: one \`webhookDeliveryWorkflow\` per delivery (as last measured, ${EARLIER_DESIGN_MEASURED}) | 50 | 100 (50 starts, 50 local activities) | **${EARLIER_DESIGN_ACTIONS.toFixed(4)}** | BatchMarkers 50, StartWorkflowExecution 50 |`
  )
  const windows: Array<[string, WindowFigures, number]> = []
  for (const x of [one, twenty].filter((y) => y !== undefined))
    windows.push([`${x.endpoints} endpoint(s), ${x.rate} events/s`, x.window, x.stats.delivered])
  for (const f of failing)
    windows.push([`20 endpoints, one failing, ${f.rate} events/s`, f.window, f.healthy.delivered])
  if (r.kill) windows.push(['20 endpoints, worker killed and restarted', r.kill.window, r.kill.stats.delivered])
  for (const [label, w, delivered] of windows) {
    actionRows.push(
      `| ${label} | ${delivered} | ${totalOf(w)} (${byType(w)}) | **${perDelivery(totalOf(w), delivered)}** | ${serverBreakdown(w.serverActions)} → ${perDelivery(serverTotal(w), delivered)} per delivery |`
    )
  }
  if (actionRows.length) {
    out.push(
      '',
      "**Temporal actions per successful delivery**, counted in the workflow histories on the benchmark's task queue " +
        '(workflow starts, activities scheduled, timers started, signals, local-activity markers with a timestamp inside ' +
        "the run), and by the dev server's own `action` counter (namespace-wide, published a few seconds late; it also " +
        "counts activity heartbeats, which leave nothing in a history, and the API's minutely start of the already " +
        'running pumps):',
      '',
      '| run | successful deliveries | actions in the histories | per delivery | server counter by type |',
      '|---|---|---|---|---|',
      ...actionRows
    )
  }

  const cpuRows: Array<[string, WindowFigures, number]> = [...windows]
  if (cpuRows.length) {
    out.push(
      '',
      'CPU per successful delivery (ms) by process, over the same intervals' +
        (pglite
          ? inApi
            ? ''
            : ' (PostgreSQL: the embedded server process)'
          : " (PostgreSQL: this database's connections)") +
        '. A process that ended during the interval (the killed worker) is not counted.',
      '',
      `| run | ${ROLES.map(([, name]) => name).join(' | ')} | total |`,
      `|---|${ROLES.map(() => '---|').join('')}---|`,
      ...cpuRows.map(([label, w, delivered]) => {
        const per = (seconds: number) => (delivered ? ((seconds * 1000) / delivered).toFixed(2) : '—')
        const total = ROLES.reduce((n, [role]) => n + w.cpu[role], 0)
        return `| ${label} | ${ROLES.map(([role]) => (inApi && role === 'postgres' ? 'in the API' : per(w.cpu[role]))).join(' | ')} | ${per(total)} |`
      })
    )
  }

  if (r.sigterm || r.kill || r.killApi) out.push('', '**Stopping and crashing the worker and the API**:', '')
  if (r.sigterm) {
    const t = r.sigterm
    out.push(
      `- SIGTERM with a backlog (${t.events} events × ${t.endpoints} endpoints in a burst, receivers answering after ` +
        `${t.receiverDelayMs} ms; ${t.deliveredAtSignal} delivered and ${t.claimedAtSignal} claimed when the signal went): ` +
        `the worker exited after **${s(t.exitMs)} s** (code ${t.exitCode}, ${t.stoppedCleanly ? 'orderly stop logged' : 'no orderly stop logged'}); ` +
        `started again ${s(t.restartMs)} s later, it delivered the rest within ${s(t.drainAfterRestartMs)} s and every row had ended ` +
        `${s(t.endedAfterRestartMs)} s after the restart. ` +
        `${t.stats.lost} lost, ${t.stats.duplicates} duplicates; rows by status ${JSON.stringify(t.statuses)}. Measured ${when(t.window)}.`
    )
  }
  if (r.kill) {
    const k = r.kill
    out.push(
      `- kill -9 of the worker ${k.killAtS} s into the 20-endpoint run at ${k.rate} events/s (${k.events} events), started again at once: ` +
        `polling again after ${s(k.restartMs)} s; first delivery of an event committed after the kill ${s(k.firstDeliveryMs)} s after it; ` +
        `every event committed from ${s(k.backUnderOneSecondMs)} s after the kill on delivered within 1 s; the last delivery of an ` +
        `event committed before the kill ${s(k.lastEarlierDeliveryMs)} s after it; ${k.overThirtySeconds} deliveries took over 30 s ` +
        `(a killed worker's claims are attempted again only when their 60 s lease ends). ${k.stats.lost} lost, ` +
        `**${k.stats.duplicates} duplicates**; p95 over the whole run ${ms(k.stats.p95)} ms. Measured ${when(k.window)}.`
    )
  }
  if (r.killApi) {
    const k = r.killApi
    out.push(
      `- kill -9 of the API ${k.killAtS} s into \`POST /v1/payments\` at ${k.rate}/s with 20 endpoints subscribed (the API in a ` +
        `process of its own), started again at once on the same port: listening again after ${s(k.restartMs)} s; answers ` +
        `${JSON.stringify(k.statuses)} ("error": requests the dead process never answered). ${k.payments} payments committed, ` +
        `${k.events} \`payment.succeeded\` events; ${k.stats.delivered} of ${k.events * 20} deliveries made, ${k.stats.lost} lost, ` +
        `${k.stats.duplicates} duplicates; p95 ${ms(k.stats.p95)} ms. Measured ${when(k.window)}.`
    )
  }
  return out.join('\n')
}
