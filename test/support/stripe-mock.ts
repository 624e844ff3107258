/**
 * @module Stripe's official API mock (stripe-mock, built once from the Go module proxy and cached outside the clone by
 * scripts/stripe/obtain-stripe-mock.sh), started for one test file, behind a small recording proxy: the API under
 * test talks to the proxy, which passes every request on to stripe-mock and keeps what was sent (method, path,
 * Idempotency-Key, form body), and which can play an unreachable Stripe (`down`). stripe-mock validates each request
 * against Stripe's own OpenAPI description and answers Stripe's response shapes; it keeps no state.
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process'
import { createServer, request as httpRequest, type Server } from 'node:http'
import net, { type AddressInfo } from 'node:net'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'

export interface StripeRequest {
  method: string
  path: string
  idempotencyKey: string | undefined
  /** The form-encoded body, decoded (`metadata[payment_id]` and so on as keys). */
  form: Record<string, string>
  status: number
}

export interface StripeMock {
  /** What the API's STRIPE_API_BASE should be. */
  url: string
  requests: StripeRequest[]
  /** While true, every connection is dropped before any answer: Stripe unreachable. */
  down: boolean
  /** Requests whose path starts with this wait, unanswered, until {@link StripeMock.release} (a slow Stripe). */
  holding: string | undefined
  /** Lets the held requests through and stops holding. */
  release(): void
  stop(): Promise<void>
}

const obtainScript = fileURLToPath(new URL('../../scripts/stripe/obtain-stripe-mock.sh', import.meta.url))

async function freePort(): Promise<number> {
  const server = net.createServer()
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  await new Promise((resolve) => server.close(resolve))
  return port
}

async function waitForPort(port: number, child: ChildProcess): Promise<void> {
  for (let i = 0; i < 100; i++) {
    if (child.exitCode !== null) throw new Error(`stripe-mock exited with ${child.exitCode}`)
    const open = await new Promise<boolean>((resolve) => {
      const socket = net.connect(port, '127.0.0.1')
      socket.once('connect', () => (socket.destroy(), resolve(true)))
      socket.once('error', () => resolve(false))
    })
    if (open) return
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
  throw new Error('stripe-mock did not listen within 10 s')
}

/** Starts stripe-mock and its recording proxy. */
export async function startStripeMock(): Promise<StripeMock> {
  const { stdout } = await promisify(execFile)('bash', [obtainScript], { timeout: 600_000 })
  const binary = stdout.trim()
  const [httpPort, httpsPort] = [await freePort(), await freePort()]
  const child = spawn(binary, ['-http-port', String(httpPort), '-https-port', String(httpsPort)], {
    stdio: ['ignore', 'ignore', 'pipe'],
  })
  child.stderr.resume()
  await waitForPort(httpPort, child)

  const requests: StripeRequest[] = []
  let held: Array<() => void> = []
  const mock: { down: boolean; holding: string | undefined; release(): void } = {
    down: false,
    holding: undefined,
    release() {
      mock.holding = undefined
      for (const go of held.splice(0)) go()
    },
  }
  const proxy: Server = createServer((req, res) => {
    if (mock.down) {
      req.socket.destroy()
      return
    }
    const chunks: Buffer[] = []
    req.on('data', (chunk: Buffer) => chunks.push(chunk))
    req.on('end', () => {
      const body = Buffer.concat(chunks)
      const entry: StripeRequest = {
        method: req.method ?? 'GET',
        path: req.url ?? '/',
        idempotencyKey: req.headers['idempotency-key'] as string | undefined,
        form: Object.fromEntries(new URLSearchParams(body.toString('utf8'))),
        status: 0,
      }
      requests.push(entry)
      const forward = () => {
        const upstream = httpRequest(
          { host: '127.0.0.1', port: httpPort, method: req.method, path: req.url, headers: req.headers },
          (answer) => {
            entry.status = answer.statusCode ?? 0
            res.writeHead(answer.statusCode ?? 502, answer.headers)
            answer.pipe(res)
          }
        )
        upstream.on('error', () => res.destroy())
        upstream.end(body)
      }
      if (mock.holding !== undefined && entry.path.startsWith(mock.holding)) held.push(forward)
      else forward()
    })
  })
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve))
  const { port } = proxy.address() as AddressInfo
  return Object.assign(mock, {
    url: `http://127.0.0.1:${port}`,
    requests,
    async stop() {
      held = []
      proxy.closeAllConnections()
      await new Promise((resolve) => proxy.close(resolve))
      child.kill('SIGTERM')
    },
  })
}
