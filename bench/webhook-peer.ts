/**
 * @module The webhook benchmark's peer process: the receivers on loopback (one port each) and the open-loop client that drives an
 * emitting API call. It is a process of its own so that the thousand requests a second it answers, and the requests
 * it sends, neither run on the API's event loop nor count as the API's CPU (bench/process-cpu.ts reports it apart):
 * in production the receivers and the API's callers are elsewhere.
 *
 * Started by bench/webhook-peer-client.ts; talks over IPC. Every arrival is reported (duplicates included), with the
 * time it was read, in batches.
 */
import http from 'node:http'
import type { AddressInfo } from 'node:net'

/** What the benchmark tells the peer. */
export type PeerCommand =
  | { type: 'behaviour'; failingPrefixes: string[]; delayMs: number }
  | {
      type: 'load'
      id: number
      url: string
      headers: Record<string, string>
      /** Request bodies, sent in turn (one body, or several to spread requests over rows). */
      bodies: string[]
      rate: number
      seconds: number
    }
  | { type: 'flush'; id: number }

/** One request a receiver read: `[event id, path, ms since the epoch, status answered]`. */
export type Arrival = [string, string, number, number]

export interface LoadResult {
  /** ms from sending to the end of the answer, in the order sent. */
  latencies: number[]
  statuses: Record<string, number>
  /** The first few answers other than 2xx, to say why. */
  errors: string[]
  sendSeconds: number
}

/** What the peer tells the benchmark. */
export type PeerMessage =
  | { type: 'ready'; ports: number[] }
  | { type: 'arrivals'; arrivals: Arrival[] }
  | { type: 'load-result'; id: number; result: LoadResult }
  | { type: 'flushed'; id: number }

const send = (message: PeerMessage) => process.send?.(message)

let behaviour = { failingPrefixes: [] as string[], delayMs: 0 }
let pending: Arrival[] = []
const flush = () => {
  if (pending.length === 0) return
  send({ type: 'arrivals', arrivals: pending })
  pending = []
}
// Batched: one IPC message per event would cost more than the requests themselves at a thousand a second.
setInterval(flush, 100)

/** One receiver's handler; every receiver (one per port) shares it. */
function receive(request: http.IncomingMessage, response: http.ServerResponse) {
  const chunks: Buffer[] = []
  request.on('data', (chunk: Buffer) => chunks.push(chunk))
  request.on('end', () => {
    const at = Date.now()
    const path = request.url ?? '/'
    const status = behaviour.failingPrefixes.some((prefix) => path.startsWith(prefix)) ? 500 : 200
    let id = ''
    try {
      id = (JSON.parse(Buffer.concat(chunks).toString('utf8')) as { id: string }).id
    } catch {
      // Not a delivery; recorded with an empty id, so it shows up as unexpected rather than vanishing.
    }
    pending.push([id, path, at, status])
    const answer = () => response.writeHead(status).end()
    if (behaviour.delayMs > 0) setTimeout(answer, behaviour.delayMs)
    else answer()
  })
}

/** Sends `rate` requests a second for `seconds`, each at its time whatever the earlier ones are doing (open loop). */
async function openLoop(command: Extract<PeerCommand, { type: 'load' }>): Promise<LoadResult> {
  const target = new URL(command.url)
  if (target.hostname !== '127.0.0.1') throw new Error('the benchmark sends traffic to 127.0.0.1 only')
  const agent = new http.Agent({ keepAlive: true, maxSockets: 256 })
  const total = Math.round(command.rate * command.seconds)
  const latencies = new Array<number>(total).fill(NaN)
  const statuses: Record<string, number> = {}
  const errors: string[] = []
  const started = performance.now()
  const inFlight: Promise<void>[] = []
  for (let i = 0; i < total; i++) {
    const wait = started + (i * 1000) / command.rate - performance.now()
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait))
    inFlight.push(
      new Promise<void>((resolve) => {
        const t0 = performance.now()
        const request = http.request(target, { method: 'POST', agent, headers: command.headers }, (response) => {
          const status = response.statusCode ?? 0
          let text = ''
          response.on('data', (chunk: Buffer) => {
            if (status >= 300 && text.length < 300) text += chunk.toString('utf8')
          })
          response.on('end', () => {
            if (status >= 300 && errors.length < 5) errors.push(`${status} ${text.slice(0, 300)}`)
            latencies[i] = performance.now() - t0
            statuses[response.statusCode ?? 0] = (statuses[response.statusCode ?? 0] ?? 0) + 1
            resolve()
          })
        })
        request.on('error', (error) => {
          statuses.error = (statuses.error ?? 0) + 1
          if (errors.length < 5) errors.push(error.message)
          resolve()
        })
        request.end(command.bodies[i % command.bodies.length])
      })
    )
  }
  const sendSeconds = (performance.now() - started) / 1000
  await Promise.all(inFlight)
  agent.destroy()
  return { latencies, statuses, errors, sendSeconds }
}

process.on('message', (command: PeerCommand) => {
  if (command.type === 'behaviour') behaviour = { failingPrefixes: command.failingPrefixes, delayMs: command.delayMs }
  else if (command.type === 'flush') {
    flush()
    send({ type: 'flushed', id: command.id })
  } else {
    void openLoop(command).then((result) => send({ type: 'load-result', id: command.id, result }))
  }
})
// The benchmark going away by any means closes the IPC channel: the peer goes with it.
process.on('disconnect', () => process.exit(0))

/**
 * Receivers on as many ports as asked: integrators' endpoints are different servers, and the worker keeps a connection
 * pool per origin (64 sockets), so twenty endpoints on one port would share one pool as they never do in production.
 */
const receivers = Array.from({ length: Number(process.argv[2] ?? 1) }, () => {
  const server = http.createServer(receive)
  // The default 5 s keep-alive would close connections the pumps are about to reuse between slow answers.
  server.keepAliveTimeout = 60_000
  return new Promise<number>((resolve) =>
    server.listen(0, '127.0.0.1', () => resolve((server.address() as AddressInfo).port))
  )
})
send({ type: 'ready', ports: await Promise.all(receivers) })
