/**
 * @module Closed loops of `GET /v1/appointments/{id}/workflow` with no pause between calls: the polling load of issue
 * 22, used by test/integration/workflow-views-under-load.int.test.ts and the `views` phase of bench/booking.bench.ts.
 *
 * The loops run in a process of their own, at the lowest CPU priority: they stand for clients on other machines,
 * whose HTTP work would not take the platform's event loop or cores. Controlled over IPC: `on`/`off` (answered once
 * the loops are answering, or drained), `stop` (answered with the tally).
 */
import { spawn } from 'node:child_process'

export interface ViewLoopsTally {
  views: number
  /** Answers by HTTP status, and problem code for any other than 200 ("503 dependency_unavailable"). */
  statuses: Record<string, number>
  /** The first problem detail of each status other than 200. */
  details: Record<string, string>
  /** Latency of the views, ms: median and 95th percentile. */
  p50: number
  p95: number
}

export interface ViewLoops {
  /** Turns the loops on or off, and waits until they really are (answering, or drained). */
  set(on: boolean): Promise<void>
  /** Ends the loops; their tally is then `tally()`. */
  stop(): Promise<void>
  tally(): ViewLoopsTally
}

const SCRIPT = `
  const [baseUrl, token, ids, count] = JSON.parse(process.argv[1])
  let on = false, running = true, inFlight = 0, views = 0
  const statuses = {}
  const details = {}
  const latencies = []
  const sleep = (ms) => new Promise((r) => setTimeout(r, ms))
  const loop = async (i) => {
    for (let n = 0; running; n++) {
      if (!on) { await sleep(5); continue }
      inFlight++
      const started = performance.now()
      const url = baseUrl + '/v1/appointments/' + ids[(i + n) % ids.length] + '/workflow'
      const view = () => fetch(url, { headers: { Authorization: 'Bearer ' + token } })
      // A kept-alive connection the server closed as it was reused fails the GET before it is sent: retried once, as
      // clients retry an idempotent request. Anything else is counted, never thrown: a dead loop process would leave
      // the test waiting for its answer until its timeout instead of failing with the status.
      let status
      try {
        const response = await view().catch(view)
        const body = await response.text()
        status = response.status
        // Any other answer is counted under its problem code too, and its first detail kept, so that a failure says
        // which dependency answered late rather than only that one did.
        if (status !== 200) {
          let problem = {}
          try { problem = JSON.parse(body) } catch {}
          status = status + ' ' + (problem.code ?? 'no code')
          details[status] ??= problem.detail ?? body.slice(0, 200)
        }
      } catch (error) {
        status = 'network error: ' + (error.cause?.code ?? error.message)
      }
      latencies.push(performance.now() - started)
      inFlight--
      views++
      statuses[status] = (statuses[status] ?? 0) + 1
    }
  }
  const loops = Array.from({ length: count }, (_, i) => loop(i))
  process.on('message', async (message) => {
    if (message === 'stop') {
      running = false
      await Promise.all(loops)
      latencies.sort((a, b) => a - b)
      const at = (q) => latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))] ?? NaN
      process.send({ views, statuses, details, p50: at(0.5), p95: at(0.95) }, () => process.exit(0))
      return
    }
    on = message === 'on'
    const seen = views
    while (on ? views < seen + count : inFlight > 0) await sleep(5)
    process.send('ready')
  })
`

/** Starts `count` loops viewing `appointmentIds` in turn, switched off until `set(true)`. */
export function startViewLoops(options: {
  baseUrl: string
  token: string
  appointmentIds: string[]
  count: number
}): ViewLoops {
  const { baseUrl, token, appointmentIds, count } = options
  // `nice` execs node in place, so the IPC channel is node's own.
  const child = spawn(
    'nice',
    ['-n', '19', process.execPath, '-e', SCRIPT, JSON.stringify([baseUrl, token, appointmentIds, count])],
    { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] }
  )
  let tally: ViewLoopsTally = { views: 0, statuses: {}, details: {}, p50: NaN, p95: NaN }
  const ask = <T>(message: string) =>
    new Promise<T>((resolve, reject) => {
      // One exit listener per question, removed with its answer: kept, they piled up past Node's warning of 10.
      const exited = (code: number | null) => reject(new Error(`the view loops exited (${code})`))
      child.once('exit', exited)
      child.once('message', (answer) => {
        child.off('exit', exited)
        resolve(answer as T)
      })
      child.send(message)
    })
  return {
    set: async (on: boolean) => void (await ask<string>(on ? 'on' : 'off')),
    async stop() {
      tally = await ask<ViewLoopsTally>('stop')
    },
    tally: () => tally,
  }
}
