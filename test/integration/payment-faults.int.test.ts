/**
 * Faults on the way of a payment and a refund (issue 37): the API process killed (-9) while Stripe has its request
 * and before we recorded the answer, the worker killed while a refund or an expiry waits for it, Stripe answering 500
 * before 200. The API under test runs as a real child process here, so it can die as a crash would; a second,
 * in-process API on the same database sweeps the outbox and serves the checks. After each fault the ledger check
 * (domain/reconciliation/ledger-check.ts) holds, against the database's rules and what Stripe holds.
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { randomUUID } from 'node:crypto'
import { createServer, request as httpRequest, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { fileURLToPath } from 'node:url'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { runInUnitOfWork } from '../../infra/unit-of-work.ts'
import { httpClient, type HttpClient } from '../support/http.ts'
import { expectLedgerHolds } from '../support/ledger-check.ts'
import { eventually, startPlatform, type Platform } from '../support/platform.ts'
import { freePort } from '../../scripts/start/start-process.ts'
import { startStripeMock, type StripeMock } from '../support/stripe-mock.ts'
import { deliverStripeEvent } from '../support/stripe-webhooks.ts'

/** Whether a payment's first refund has SUCCEEDED and is counted in the payment's `amountRefunded`. */
const settledRefund = (p: { amountRefunded: number; refunds: Array<{ status: string; amount: number }> }) =>
  p.refunds[0]?.status === 'SUCCEEDED' && p.amountRefunded >= p.refunds[0].amount

const ROOT = fileURLToPath(new URL('../..', import.meta.url))
const WEBHOOK_SECRET = 'whsec_faults'
let stripeMock: StripeMock
let platform: Platform
/** Stripe's mock behind a gate that can answer 500 to the next calls of a path, as Stripe does in an incident. */
let gate: { url: string; failNext: (path: string, times: number) => void; close: () => Promise<void> }

function startGate(upstream: string): Promise<typeof gate> {
  const failing = new Map<string, number>()
  const target = new URL(upstream)
  const server: Server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0]!
    const left = failing.get(path) ?? 0
    if (left > 0) {
      failing.set(path, left - 1)
      req.resume()
      res.writeHead(500, { 'content-type': 'application/json' })
      res.end(JSON.stringify({ error: { type: 'api_error', message: 'An unknown error occurred' } }))
      return
    }
    const forward = httpRequest(
      { host: target.hostname, port: target.port, method: req.method, path: req.url, headers: req.headers },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers)
        answer.pipe(res)
      }
    )
    forward.on('error', () => res.destroy())
    req.pipe(forward)
  })
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () =>
      resolve({
        url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
        failNext: (path, times) => failing.set(path, times),
        close: () => new Promise((done) => server.close(() => done())),
      })
    )
  )
}

const stripeEnv = () => ({
  ONLINE_PAYMENT_PROCESSOR: 'stripe',
  STRIPE_SECRET_KEY: 'sk_test_123',
  STRIPE_WEBHOOK_SECRET: WEBHOOK_SECRET,
  STRIPE_API_BASE: gate.url,
  REFUND_TAKEOVER_SECONDS: '1',
})

beforeAll(async () => {
  stripeMock = await startStripeMock()
  gate = await startGate(stripeMock.url)
  platform = await startPlatform({ overrides: stripeEnv() })
})

afterAll(async () => {
  // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- unset when beforeAll failed before assigning them
  await Promise.allSettled([platform?.stop(), gate?.close(), stripeMock?.stop()])
})

/** The API as its own process (api/server.ts), on the platform's database, Temporal and task queue. */
async function startApiProcess(): Promise<{ http: HttpClient; child: ChildProcess }> {
  const port = await freePort()
  const env = { ...process.env, ...platform.workerEnv, PORT: String(port), LOG_LEVEL: 'silent' }
  const child = spawn(process.execPath, ['--import', 'tsx', 'api/server.ts'], { cwd: ROOT, env, stdio: 'ignore' })
  const http = httpClient(`http://127.0.0.1:${port}`)
  await eventually(async () => ((await http.get('/health')).status === 200 ? true : undefined), 60_000)
  return { http, child }
}

/** SIGKILL: the process dies between two instructions, as in a crash. */
const crash = (child: ChildProcess) =>
  new Promise<void>((resolve) => {
    child.once('exit', () => resolve())
    child.kill('SIGKILL')
  })

async function freshTenant() {
  const client = await platform.newTenant(['orders', 'payments'])
  return { ...client, token: await platform.token(client) }
}
type Tenant = Awaited<ReturnType<typeof freshTenant>>

async function openOrder(t: Tenant, total: number): Promise<string> {
  const body = {
    status: 'OPEN',
    currency: 'USD',
    lines: [{ kind: 'SESSION_PACKAGE', description: 'S', unitAmount: total }],
  }
  const response = await platform.http.post('/v1/orders', { token: t.token, body })
  expect(response.status).toBe(201)
  return response.body.id
}

const payOnline = (http: HttpClient, t: Tenant, orderId: string, amount: number, key = randomUUID()) =>
  http.post('/v1/payments', {
    token: t.token,
    headers: { 'Idempotency-Key': key },
    body: { orderId, amount, currency: 'USD', method: 'CARD_ONLINE' },
  })

async function deliver(event: object) {
  const answer = await deliverStripeEvent(platform.http, event, { secret: WEBHOOK_SECRET })
  expect(answer.status).toBe(200)
  return answer.body.outcome as string
}

/** A CARD_ONLINE payment the payer completed: Stripe holds it succeeded, and told us. */
async function succeededPayment(t: Tenant, orderId: string, amount: number) {
  const created = await payOnline(platform.http, t, orderId, amount)
  expect(created.status).toBe(201)
  stripeMock.setIntentStatus(created.body.processorReference, 'succeeded')
  expect(await deliver(stripeMock.event('payment_intent.succeeded', created.body.processorReference))).toBe('applied')
  return created.body as { id: string; processorReference: string }
}

const getPayment = async (t: Tenant, id: string) =>
  (await platform.http.get(`/v1/payments/${id}`, { token: t.token })).body
const refundsAtStripe = (refundId: string) =>
  stripeMock.requests.filter((r) => r.path === '/v1/refunds' && r.form['metadata[refund_id]'] === refundId)
/** Waits until Stripe has been asked, after its `from`-th request, for something at `path`. */
const stripeAsked = (path: string, from: number) =>
  eventually(async () => (stripeMock.requests.slice(from).some((r) => r.path === path) ? true : undefined), 30_000, 20)

describe('the API killed while Stripe has its request', () => {
  it('a refund recorded before the crash is made once, by its workflow, with the key the dead request sent', async () => {
    const t = await freshTenant()
    const orderId = await openOrder(t, 8_000)
    const payment = await succeededPayment(t, orderId, 8_000)
    const api = await startApiProcess()
    const from = stripeMock.requests.length
    stripeMock.holding = '/v1/refunds'
    const asked = api.http
      .post(`/v1/payments/${payment.id}/refunds`, {
        token: t.token,
        headers: { 'Idempotency-Key': randomUUID() },
        body: { amount: 3_000, reason: 'REQUESTED_BY_CLIENT' },
      })
      .catch((error: unknown) => error)
    await stripeAsked('/v1/refunds', from)
    await crash(api.child)
    // Stripe makes the refund after all; the request that asked is gone before it could record the answer.
    stripeMock.release()
    expect(await asked).toBeInstanceOf(Error)

    // Waits for the state, bounded by the test's own time rather than eventually's 30 s: the outbox sweep, the
    // workflow's start delay and its activity run on a machine the suite keeps busy, and this took 24-42 s of the
    // test's time on the slower machines of issue 59 (it failed once at 30 s, 2026-11-27).
    const settled = await eventually(async () => {
      const p = await getPayment(t, payment.id)
      return settledRefund(p) ? p : undefined
    }, 75_000)
    expect(settled.amountRefunded).toBe(3_000)
    const sent = refundsAtStripe(settled.refunds[0].id)
    expect(sent.length).toBeGreaterThanOrEqual(2) // the dead request's, and the workflow's
    expect(new Set(sent.map((r) => r.idempotencyKey)).size).toBe(1)
    // Stripe answers one key with one refund: it holds one.
    expect(stripeMock.objects('refund').filter((r) => r.payment_intent === payment.processorReference)).toHaveLength(1)
    const restarted = await startApiProcess()
    expect((await restarted.http.get(`/v1/orders/${orderId}`, { token: t.token })).body).toMatchObject({
      amountRefunded: 3_000,
    })
    await crash(restarted.child)
    await expectLedgerHolds(platform, t.tenantId, stripeMock)
  }, 150_000)

  it('a payment whose request died is taken up by the retry with the same key, and never charged twice', async () => {
    const t = await freshTenant()
    const orderId = await openOrder(t, 5_000)
    const key = randomUUID()
    const api = await startApiProcess()
    const from = stripeMock.requests.length
    stripeMock.holding = '/v1/payment_intents'
    const asked = payOnline(api.http, t, orderId, 5_000, key).catch((error: unknown) => error)
    await stripeAsked('/v1/payment_intents', from)
    await crash(api.child)
    stripeMock.release()
    expect(await asked).toBeInstanceOf(Error)
    const [kept] = (await platform.http.get(`/v1/payments?orderId=${orderId}`, { token: t.token })).body.data
    expect(kept).toMatchObject({ status: 'PENDING', processorReference: null })

    // The dead request's claim on its key lasts its lease (2 minutes): here it has passed.
    await runInUnitOfWork(platform.db, t.tenantId, ({ tx }) =>
      tx.idempotencyRecord.updateMany({ where: { key }, data: { expiresAt: new Date(Date.now() - 1_000) } })
    )
    const restarted = await startApiProcess()
    const retried = await payOnline(restarted.http, t, orderId, 5_000, key)
    await crash(restarted.child)
    expect(retried.status, JSON.stringify(retried.body)).toBe(201)
    expect(retried.body).toMatchObject({ id: kept.id, processorReference: expect.stringMatching(/^pi_/) })
    const intents = stripeMock.requests.filter(
      (r) => r.path === '/v1/payment_intents' && r.form['metadata[payment_id]'] === kept.id
    )
    expect(new Set(intents.map((r) => r.idempotencyKey))).toEqual(
      new Set([`payment:${t.tenantId}:${t.client_id}:${key}`])
    )
    expect(
      stripeMock.objects('payment_intent').filter((i) => (i.metadata as { payment_id?: string }).payment_id === kept.id)
    ).toHaveLength(1)
    await expectLedgerHolds(platform, t.tenantId, stripeMock)
  })
})

describe('the worker down', () => {
  it('a refund asked for while Stripe and the worker are both down is made once the worker is back', async () => {
    const t = await freshTenant()
    const orderId = await openOrder(t, 6_000)
    const payment = await succeededPayment(t, orderId, 6_000)
    await platform.killWorkers('SIGKILL')
    stripeMock.down = true
    let asked
    try {
      asked = await platform.http.post(`/v1/payments/${payment.id}/refunds`, {
        token: t.token,
        body: { amount: 6_000, reason: 'SERVICE_NOT_PROVIDED' },
      })
    } finally {
      stripeMock.down = false
    }
    expect(asked.status).toBe(202)
    expect((await getPayment(t, payment.id)).amountRefunded).toBe(0)
    await platform.startWorker()
    const settled = await eventually(async () => {
      const p = await getPayment(t, payment.id)
      return settledRefund(p) ? p : undefined
    })
    expect(settled.amountRefunded).toBe(6_000)
    expect((await platform.http.get(`/v1/orders/${orderId}`, { token: t.token })).body.status).toBe('REFUNDED')
    await expectLedgerHolds(platform, t.tenantId, stripeMock)
  })
})

describe('Stripe answering 500, then 200', () => {
  it('a refund answered 500 is made by its workflow, counted once', async () => {
    const t = await freshTenant()
    const orderId = await openOrder(t, 4_000)
    const payment = await succeededPayment(t, orderId, 4_000)
    // Stripe's library tries three times; every one of the request's tries gets 500.
    gate.failNext('/v1/refunds', 3)
    const asked = await platform.http.post(`/v1/payments/${payment.id}/refunds`, {
      token: t.token,
      body: { amount: 1_000, reason: 'DUPLICATE' },
    })
    // 202 PENDING; or 201 SUCCEEDED when the refund's workflow, started a second later, got it made before the
    // request's last try gave up.
    expect([201, 202], JSON.stringify(asked.body)).toContain(asked.status)
    if (asked.status === 201) expect(asked.body.status).toBe('SUCCEEDED')
    const settled = await eventually(async () => {
      const p = await getPayment(t, payment.id)
      return settledRefund(p) ? p : undefined
    })
    expect(settled.amountRefunded).toBe(1_000)
    expect(new Set(refundsAtStripe(asked.body.id).map((r) => r.idempotencyKey)).size).toBe(1)
    await expectLedgerHolds(platform, t.tenantId, stripeMock)
  })

  it('a payment whose intent call is answered 500 is 503, and the retry with its key succeeds', async () => {
    const t = await freshTenant()
    const orderId = await openOrder(t, 2_000)
    const key = randomUUID()
    gate.failNext('/v1/payment_intents', 3)
    const refused = await payOnline(platform.http, t, orderId, 2_000, key)
    expect(refused.status).toBe(503)
    const retried = await payOnline(platform.http, t, orderId, 2_000, key)
    expect(retried.status).toBe(201)
    await expectLedgerHolds(platform, t.tenantId, stripeMock)
  })
})
