/**
 * @module A real webhook receiver for the tests: an HTTP server on loopback that records every delivery (headers and
 * raw body), verifies its signature with the SDK's verifier (sdks/typescript/src/webhooks, what receivers are given) when given
 * the endpoint's keys, and answers as each test scripts it: a status, Retry-After, a redirect, or no answer at all.
 */
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http'
import type { AddressInfo, Socket } from 'node:net'
import { verifyWebhook, type V2Keys, type WebhookEvent } from '../../sdks/typescript/src/index.ts'

/** One delivery as it arrived. */
export interface ReceivedDelivery {
  path: string
  headers: IncomingHttpHeaders
  /** The raw body, exactly as sent. */
  body: string
  receivedAt: number
  /** The verified event, when the path has keys to verify with. */
  verified?: WebhookEvent
  verificationError?: Error
}

/** How to answer: a status (with headers and body, after `delayMs`), or `hang` to never answer. */
export type Reply = { status: number; headers?: Record<string, string>; body?: string; delayMs?: number } | 'hang'

/** Decides the reply to the `n`th delivery (1-based) on a path. */
export type Responder = (delivery: ReceivedDelivery, n: number) => Reply

export interface WebhookReceiver {
  /** The receiver's URL for `path` (each endpoint of a test gets its own path). */
  url(path: string): string
  /** Scripts the replies of a path (default: 200, or 400 when verification fails). */
  respond(path: string, responder: Responder): void
  /** Verifies deliveries on `path` with these keys; a delivery that fails verification is answered 400. */
  verifyWith(path: string, keys: V2Keys): void
  received(path: string): ReceivedDelivery[]
  /** Resolves once `path` has received `count` deliveries. */
  waitFor(path: string, count: number, timeoutMs?: number): Promise<ReceivedDelivery[]>
  close(): Promise<void>
}

/** Replies in turn from a list; the last one repeats. */
export const replies =
  (...list: Reply[]): Responder =>
  (_delivery, n) =>
    list[Math.min(n, list.length) - 1]!

/** Starts a receiver on 127.0.0.1 and a free port. */
export async function startWebhookReceiver(): Promise<WebhookReceiver> {
  const deliveries = new Map<string, ReceivedDelivery[]>()
  const responders = new Map<string, Responder>()
  const keys = new Map<string, V2Keys>()
  const sockets = new Set<Socket>()
  const waiters = new Set<() => void>()

  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = []
    request.on('data', (chunk: Buffer) => chunks.push(chunk))
    // The SDK verifies with Web Crypto, asynchronously: the delivery is recorded (and answered) once that is done.
    const answer = async () => {
      const path = (request.url ?? '/').split('?')[0]!
      const delivery: ReceivedDelivery = {
        path,
        headers: request.headers,
        body: Buffer.concat(chunks).toString('utf8'),
        receivedAt: Date.now(),
      }
      const pathKeys = keys.get(path)
      if (pathKeys) {
        try {
          delivery.verified = await verifyWebhook(delivery.body, request.headers, pathKeys)
        } catch (error) {
          delivery.verificationError = error as Error
        }
      }
      const list = deliveries.get(path) ?? []
      list.push(delivery)
      deliveries.set(path, list)
      for (const wake of waiters) wake()
      const reply: Reply = responders.get(path)?.(delivery, list.length) ?? {
        status: delivery.verificationError ? 400 : 200,
      }
      if (reply === 'hang') return
      const respond = () => void response.writeHead(reply.status, reply.headers).end(reply.body ?? '')
      if (reply.delayMs) setTimeout(respond, reply.delayMs)
      else respond()
    }
    request.on('end', () => void answer())
  })
  server.on('connection', (socket) => {
    sockets.add(socket)
    socket.on('close', () => sockets.delete(socket))
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo

  return {
    url: (path) => `http://127.0.0.1:${port}${path}`,
    respond: (path, responder) => void responders.set(path, responder),
    verifyWith: (path, pathKeys) => void keys.set(path, pathKeys),
    received: (path) => [...(deliveries.get(path) ?? [])],
    waitFor(path, count, timeoutMs = 30_000) {
      return new Promise((resolve, reject) => {
        const check = () => {
          const list = deliveries.get(path) ?? []
          if (list.length < count) return
          cleanup()
          resolve([...list])
        }
        const timer = setTimeout(() => {
          cleanup()
          reject(
            new Error(`${path}: ${(deliveries.get(path) ?? []).length} of ${count} deliveries within ${timeoutMs} ms`)
          )
        }, timeoutMs)
        const cleanup = () => {
          clearTimeout(timer)
          waiters.delete(check)
        }
        waiters.add(check)
        check()
      })
    },
    async close() {
      for (const socket of sockets) socket.destroy()
      await new Promise<void>((resolve) => server.close(() => resolve()))
    },
  }
}
