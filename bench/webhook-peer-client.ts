/**
 * @module The benchmark's side of bench/webhook-peer.ts: starts the peer process and keeps what its receivers read.
 * A delivery is the first 2xx answer to an (event, endpoint path); any later 2xx for the same pair is a duplicate.
 */
import { fork } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import type { LoadResult, PeerCommand, PeerMessage } from './webhook-peer.ts'

const PEER = fileURLToPath(new URL('./webhook-peer.ts', import.meta.url))
// The peer is TypeScript: Node 22.18+ strips types itself, older ones need tsx (as scripts/start/worker-process.ts).
const typeScriptLoader = (process.features as { typescript?: string | false }).typescript ? [] : ['--import', 'tsx']

export interface Peer {
  /** Receiver `index`'s origin (`http://127.0.0.1:<port>`, one port each): an endpoint is this plus a path. */
  receiverUrl(index: number): string
  /** First successful arrival of each `<event id> <path>`, ms since the epoch. */
  delivered: Map<string, number>
  /** Extra successful arrivals of a pair already delivered. */
  duplicatesOf: Map<string, number>
  /** Requests answered 500 (a failing endpoint), by path. */
  failedCalls: Map<string, number>
  /** Paths starting with one of these answer 500; every answer waits `delayMs`. */
  behave(options: { failingPrefixes?: string[]; delayMs?: number }): void
  /** Waits until every arrival read so far has been handed over. */
  sync(): Promise<void>
  /** Drives `rate` POSTs a second at `url` for `seconds` from the peer process (open loop). */
  load(options: Omit<Extract<PeerCommand, { type: 'load' }>, 'type' | 'id'>): Promise<LoadResult>
  stop(): void
}

export const deliveryKey = (eventId: string, path: string) => `${eventId} ${path}`

/** Starts the peer process with `receivers` receivers and waits until they listen. */
export async function startPeer(receivers: number): Promise<Peer> {
  const child = fork(PEER, [String(receivers)], {
    execArgv: typeScriptLoader,
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  })
  const delivered = new Map<string, number>()
  const duplicatesOf = new Map<string, number>()
  const failedCalls = new Map<string, number>()
  const waiting = new Map<number, (message: PeerMessage) => void>()
  let nextId = 1
  let ports: number[] = []
  let ready: () => void = () => undefined
  const listening = new Promise<void>((resolve) => (ready = resolve))

  child.on('message', (message: PeerMessage) => {
    if (message.type === 'ready') {
      ports = message.ports
      ready()
    } else if (message.type === 'arrivals') {
      for (const [eventId, path, at, status] of message.arrivals) {
        if (status !== 200) {
          failedCalls.set(path, (failedCalls.get(path) ?? 0) + 1)
          continue
        }
        const key = deliveryKey(eventId, path)
        if (delivered.has(key)) duplicatesOf.set(key, (duplicatesOf.get(key) ?? 0) + 1)
        else delivered.set(key, at)
      }
    } else {
      waiting.get(message.id)?.(message)
      waiting.delete(message.id)
    }
  })
  const ask = (command: PeerCommand & { id: number }) =>
    new Promise<PeerMessage>((resolve) => {
      waiting.set(command.id, resolve)
      child.send(command)
    })
  await listening

  let behaviour = { failingPrefixes: [] as string[], delayMs: 0 }
  return {
    receiverUrl: (index) => `http://127.0.0.1:${ports[index % ports.length]}`,
    delivered,
    duplicatesOf,
    failedCalls,
    behave(options) {
      behaviour = { ...behaviour, ...options }
      child.send({ type: 'behaviour', ...behaviour } satisfies PeerCommand)
    },
    async sync() {
      await ask({ type: 'flush', id: nextId++ })
    },
    async load(options) {
      const answer = await ask({ type: 'load', id: nextId++, ...options })
      if (answer.type !== 'load-result') throw new Error(`unexpected answer from the peer: ${answer.type}`)
      return answer.result
    },
    stop() {
      child.kill('SIGTERM')
    },
  }
}
