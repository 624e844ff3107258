/**
 * Marketplace payouts through Stripe Connect against Stripe's API mock (behind a recording proxy), the real API,
 * database, Temporal server and worker: a provider linked to a connected account (Account Links onboarding) and
 * activated by a signed `account.updated`; a settlement run whose workflow transfers each payout once, with one
 * idempotency key per transfer attempt; a provider without an active account BLOCKED until an operator retries; a
 * transfer reversed by Stripe retried as a new attempt; and the worker killed while Stripe holds a transfer's answer:
 * after a restart the same key is sent again and the payout is recorded once.
 */
import { randomUUID } from 'node:crypto'
import Stripe from 'stripe'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { runInUnitOfWork } from '../../infra/unit-of-work.ts'
import { eventually, startPlatform, type Platform } from '../support/platform.ts'
import { startStripeMock, type StripeMock } from '../support/stripe-mock.ts'

const WEBHOOK_SECRET = 'whsec_payouts_test'
const SCOPES = ['providers', 'settlements']
let stripeMock: StripeMock
let platform: Platform
const signer = new Stripe('sk_test_123')

beforeAll(async () => {
  stripeMock = await startStripeMock()
  platform = await startPlatform({
    overrides: {
      ONLINE_PAYMENT_PROCESSOR: 'stripe',
      STRIPE_SECRET_KEY: 'sk_test_123',
      STRIPE_WEBHOOK_SECRET: WEBHOOK_SECRET,
      STRIPE_API_BASE: stripeMock.url,
    },
  })
})

afterAll(async () => {
  // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- unset when beforeAll failed before assigning them
  await Promise.allSettled([platform?.stop(), stripeMock?.stop()])
})

interface Centre {
  tenantId: string
  token: string
}

async function newCentre(): Promise<Centre> {
  const client = await platform.newTenant(SCOPES, 'UTC')
  return { tenantId: client.tenantId, token: await platform.token(client) }
}

async function ok(t: Centre, method: string, path: string, body?: unknown, status = 200) {
  const response = await platform.http.request(method, path, {
    token: t.token,
    body,
    headers: { 'Idempotency-Key': randomUUID() },
  })
  expect(response.status, `${method} ${path}: ${JSON.stringify(response.body)}`).toBe(status)
  return response.body
}

async function deliver(event: object) {
  const payload = JSON.stringify(event)
  const header = signer.webhooks.generateTestHeaderString({ payload, secret: WEBHOOK_SECRET })
  const answer = await platform.http.request('POST', '/processor-webhooks/stripe', {
    raw: payload,
    headers: { 'Content-Type': 'application/json', 'Stripe-Signature': header },
  })
  expect(answer.status, JSON.stringify(answer.body)).toBe(200)
  return answer.body.outcome as string
}

const event = (type: string, object: object) => ({
  id: `evt_${randomUUID().replaceAll('-', '')}`,
  object: 'event',
  type,
  data: { object },
})

/** A provider with a connected account that Stripe has enabled for payouts. */
async function activeProvider(t: Centre, name: string) {
  const providerId = (await ok(t, 'POST', '/v1/providers', { name, timeZone: 'UTC' }, 201)).id as string
  await activate(t, providerId)
  return providerId
}

async function activate(t: Centre, providerId: string) {
  const linked = await ok(t, 'POST', `/v1/providers/${providerId}/payout-account`, {
    returnUrl: 'https://centre.example/payouts/done',
    refreshUrl: 'https://centre.example/payouts/again',
  })
  const account = {
    id: linked.accountId,
    object: 'account',
    payouts_enabled: true,
    metadata: { tenant_id: t.tenantId, provider_id: providerId },
  }
  expect(await deliver(event('account.updated', account))).toBe('applied')
  return linked
}

/** Settles everything owed until now: adjustments made before are paid out. */
async function settle(t: Centre) {
  await new Promise((resolve) => setTimeout(resolve, 20)) // periodEnd must have passed the adjustments
  const run = await ok(
    t,
    'POST',
    '/v1/marketplace/settlements',
    { currency: 'USD', periodStart: '2026-01-01T00:00:00Z', periodEnd: new Date().toISOString() },
    202
  )
  return run.id as string
}

const completed = (t: Centre, settlementId: string, timeoutMs = 60_000) =>
  eventually(async () => {
    const run = await ok(t, 'GET', `/v1/marketplace/settlements/${settlementId}`)
    return run.status === 'COMPLETED' || run.status === 'FAILED' ? run : undefined
  }, timeoutMs)

const payouts = async (t: Centre, settlementId: string) =>
  (await ok(t, 'GET', `/v1/marketplace/settlements/${settlementId}/payouts`)).data as Array<
    { id: string; providerId: string; accountId: string | null; processorReference: string | null } & Record<
      string,
      unknown
    >
  >

const transferRequests = (tenantId: string) =>
  stripeMock.requests.filter((r) => r.path === '/v1/transfers' && r.form['metadata[tenant_id]'] === tenantId)

describe('payout accounts', () => {
  it("creates one connected account per provider, answers Stripe's onboarding link, and activates on account.updated", async () => {
    const t = await newCentre()
    const providerId = (await ok(t, 'POST', '/v1/providers', { name: 'Ana SLP', timeZone: 'UTC' }, 201)).id
    const before = stripeMock.requests.length
    const urls = { returnUrl: 'https://centre.example/done', refreshUrl: 'https://centre.example/again' }
    const first = await ok(t, 'POST', `/v1/providers/${providerId}/payout-account`, urls)
    expect(first).toMatchObject({
      providerId,
      accountId: expect.stringMatching(/^acct_/),
      status: 'ONBOARDING',
      onboardingUrl: expect.stringMatching(/^https:\/\//),
    })
    const again = await ok(t, 'POST', `/v1/providers/${providerId}/payout-account`, urls)
    expect(again.accountId).toBe(first.accountId)
    const sent = stripeMock.requests.slice(before)
    expect(sent.map((r) => `${r.method} ${r.path} ${r.status}`)).toEqual([
      'POST /v1/accounts 200',
      'POST /v1/account_links 200',
      'POST /v1/account_links 200',
    ])
    expect(sent[0]!.idempotencyKey).toBe(`account:${t.tenantId}:${providerId}`)
    expect(sent[0]!.form).toMatchObject({ type: 'express', 'metadata[provider_id]': providerId })
    expect(sent[1]!.form).toMatchObject({
      account: first.accountId,
      type: 'account_onboarding',
      return_url: urls.returnUrl,
    })

    const enabled = {
      id: first.accountId,
      object: 'account',
      payouts_enabled: true,
      metadata: { tenant_id: t.tenantId, provider_id: providerId },
    }
    expect(await deliver(event('account.updated', enabled))).toBe('applied')
    expect(await deliver(event('account.updated', enabled))).toBe('unchanged')
    expect(await ok(t, 'GET', `/v1/providers/${providerId}/payout-account`)).toMatchObject({ status: 'ACTIVE' })
    const restricted = { ...enabled, payouts_enabled: false }
    expect(await deliver(event('account.updated', restricted))).toBe('applied')
    expect(await ok(t, 'GET', `/v1/providers/${providerId}/payout-account`)).toMatchObject({ status: 'RESTRICTED' })
  })
})

describe('settlement payouts', () => {
  it('transfers each payout once, blocks a provider without an account until an operator retries, and retries a reversal', async () => {
    const t = await newCentre()
    const ana = await activeProvider(t, 'Ana SLP')
    const ben = (await ok(t, 'POST', '/v1/providers', { name: 'Ben OT', timeZone: 'UTC' }, 201)).id as string
    for (const [providerId, amount] of [
      [ana, 2_500],
      [ben, 1_000],
    ] as const)
      await ok(t, 'POST', '/v1/marketplace/adjustments', { providerId, amount, currency: 'USD', reason: 'BONUS' }, 201)
    const settlementId = await settle(t)
    expect((await completed(t, settlementId)).status).toBe('COMPLETED')

    const list = await payouts(t, settlementId)
    const anaPayout = list.find((p) => p.providerId === ana)!
    const benPayout = list.find((p) => p.providerId === ben)!
    expect(anaPayout).toMatchObject({
      amount: 2_500,
      currency: 'USD',
      status: 'PAID',
      attempt: 1,
      processorReference: expect.stringMatching(/^tr_/),
    })
    expect(benPayout).toMatchObject({ amount: 1_000, status: 'BLOCKED', processorReference: null })
    const sent = transferRequests(t.tenantId)
    expect(sent).toHaveLength(1)
    expect(sent[0]!.form).toMatchObject({
      amount: '2500',
      currency: 'usd',
      destination: anaPayout.accountId,
      transfer_group: settlementId,
      'metadata[transfer_id]': anaPayout.id,
    })
    expect(sent[0]!.idempotencyKey).toBe(`transfer:${t.tenantId}:${anaPayout.id}:1`)

    // Ben finishes onboarding; the operator sends his payout.
    const refused = await platform.http.request('POST', `/v1/marketplace/payouts/${benPayout.id}/retry`, {
      token: t.token,
    })
    expect(refused.status).toBe(409)
    await activate(t, ben)
    expect(await ok(t, 'POST', `/v1/marketplace/payouts/${benPayout.id}/retry`)).toMatchObject({
      status: 'PAID',
      attempt: 2,
    })
    expect(await ok(t, 'POST', `/v1/marketplace/payouts/${anaPayout.id}/retry`, undefined, 409)).toMatchObject({
      code: 'invalid_state_transition',
    })

    // Stripe takes Ana's transfer back; the operator sends it again, as a new transfer with a new key.
    const reversal = {
      id: anaPayout.processorReference,
      object: 'transfer',
      metadata: { tenant_id: t.tenantId, transfer_id: anaPayout.id },
    }
    expect(await deliver(event('transfer.reversed', reversal))).toBe('applied')
    expect((await payouts(t, settlementId)).find((p) => p.id === anaPayout.id)).toMatchObject({ status: 'REVERSED' })
    expect(await ok(t, 'POST', `/v1/marketplace/payouts/${anaPayout.id}/retry`)).toMatchObject({
      status: 'PAID',
      attempt: 2,
    })
    expect(transferRequests(t.tenantId).map((r) => r.idempotencyKey)).toEqual([
      `transfer:${t.tenantId}:${anaPayout.id}:1`,
      `transfer:${t.tenantId}:${benPayout.id}:2`,
      `transfer:${t.tenantId}:${anaPayout.id}:2`,
    ])
  })

  it('sends the same transfer again with the same key after the worker dies waiting for Stripe, and records it once', async () => {
    const t = await newCentre()
    const cara = await activeProvider(t, 'Cara PT')
    await ok(
      t,
      'POST',
      '/v1/marketplace/adjustments',
      { providerId: cara, amount: 4_200, currency: 'USD', reason: 'BONUS' },
      201
    )
    stripeMock.holding = '/v1/transfers'
    try {
      const settlementId = await settle(t)
      await eventually(async () => (transferRequests(t.tenantId).length > 0 ? true : undefined), 30_000)
      await platform.killWorkers('SIGKILL')
      stripeMock.release()
      await platform.startWorker()
      const run = await completed(t, settlementId, 120_000)
      expect(run.status).toBe('COMPLETED')
      const list = await payouts(t, settlementId)
      expect(list).toEqual([expect.objectContaining({ providerId: cara, amount: 4_200, status: 'PAID', attempt: 1 })])
      const keys = transferRequests(t.tenantId).map((r) => r.idempotencyKey)
      // Sent before the crash and again after it, always as the same transfer: Stripe makes it once.
      expect(keys.length).toBeGreaterThanOrEqual(2)
      expect(new Set(keys)).toEqual(new Set([`transfer:${t.tenantId}:${list[0]!.id}:1`]))
      const rows = await runInUnitOfWork(platform.db, t.tenantId, (uow) => uow.tx.payoutTransfer.count())
      expect(rows).toBe(1)
    } finally {
      stripeMock.release()
    }
  }, 180_000)
})
