/**
 * Marketplace payouts through Stripe Connect against Stripe's API mock (behind a recording proxy), the real API,
 * database, Temporal server and worker: a provider linked to a connected account (Account Links onboarding) and
 * activated by a signed `account.updated`; a settlement run whose workflow transfers each payout once, with one
 * idempotency key per transfer attempt; a provider without an active account BLOCKED until an operator retries; a
 * transfer reversed by Stripe retried as a new attempt; a partial reversal, after which a retry sends only what was
 * taken back; the ledger moving a payout out of the books only when a transfer is paid, and back when reversed; the
 * worker killed while Stripe holds a transfer's answer: after a restart the same key is sent again and the payout is
 * recorded once; and an attempt left unanswered past Stripe's 24-hour idempotency window, looked up at Stripe before
 * anything is sent again (found: recorded paid; not found: a new attempt with a new key). The proxy in front of
 * stripe-mock holds the transfers made through it, answers their list, and reverses them as Stripe would. Issue 46: a
 * reversal the platform made to recover a clawback booked as a recovery; two `account.updated` of one second resolved
 * by asking Stripe; sessions paid by card lost to chargebacks before and after their payout, taken back from the
 * provider (the dispute fee never), and given back when Stripe reinstates the funds. Issue 58: a charge disputed again
 * after an inquiry closed, each dispute charged back (and given back) on its own; recoveries past the ten reversals
 * Stripe embeds in a transfer, read from the transfer's reversals list (by its event and by the reconciliation); a
 * card payment its payer completed after its period was settled, earned and paid in the next period, never in that one.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { newId } from '../../domain/ids.ts'
import { stripeProcessor } from '../../adapters/stripe/stripe-processor.ts'
import { PayoutRefusedError } from '../../domain/payouts/payout-processor.ts'
import { sendPayout } from '../../domain/payouts/payout-sending.ts'
import { runInUnitOfWork } from '../../infra/unit-of-work.ts'
import { eventually, type Platform } from '../support/platform.ts'
import type { StripeMock } from '../support/stripe-mock.ts'
import { startStripeCentres, stripeEvent, type Centre, type StripeCentres } from '../support/stripe-centres.ts'

const SCOPES = ['providers', 'settlements', 'children', 'orders', 'payments']
let centres: StripeCentres
let stripeMock: StripeMock
let platform: Platform

beforeAll(async () => {
  centres = await startStripeCentres('payouts')
  ;({ platform, stripeMock } = centres)
})

afterAll(async () => {
  // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- unset when beforeAll failed before assigning it
  await centres?.stop()
})

/** A tenant whose registered domain (the host of a webhook endpoint of its own) is centre.example. */
async function newCentre(): Promise<Centre> {
  const t = await centres.newCentre(SCOPES)
  await registerDomain(t.tenantId, 'centre.example')
  return t
}

const registerDomain = (tenantId: string, host: string) => centres.registerDomain(tenantId, host)

// After every test, each of its tenants' books hold (domain/reconciliation/ledger-check.ts): every journal entry
// balances, and every transfer paid here is at Stripe with the same amount net of reversals.
afterEach(() => centres.checkBooks())

const ok = (t: Centre, method: string, path: string, body?: unknown, status = 200) =>
  centres.ok(t, method, path, body, status)
const deliver = (event: object, endpoint: 'platform' | 'connect' = 'platform') => centres.deliver(event, endpoint)
const event = stripeEvent

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

/** The tenant's books, account by account (debit − credit), each checked to sum to zero. */
async function books(t: Centre, currency = 'USD') {
  const body = await ok(t, 'GET', `/v1/marketplace/ledger/balances?currency=${currency}`)
  const data = body.data as Array<{ account: string; balance: number }>
  expect(data.reduce((sum, a) => sum + a.balance, 0)).toBe(0)
  return (account: string) => data.find((a) => a.account === account)?.balance ?? 0
}

/** The journal entries that record money moving for a payout transfer, each balanced, oldest first. */
const transferEntries = (t: Centre, transferId: string) =>
  runInUnitOfWork(platform.db, t.tenantId, async ({ tx }) => {
    const entries = await tx.ledgerEntry.findMany({
      where: { payoutTransferId: transferId },
      include: { lines: { orderBy: { account: 'asc' } } },
      orderBy: [{ postedAt: 'asc' }, { id: 'asc' }],
    })
    for (const e of entries)
      expect(e.lines.reduce((sum, l) => sum + l.debit, 0)).toBe(e.lines.reduce((sum, l) => sum + l.credit, 0))
    return entries.map((e) => e.lines.map((l) => ({ account: l.account, debit: l.debit, credit: l.credit })))
  })

const attemptsOf = (t: Centre, transferId: string) =>
  runInUnitOfWork(platform.db, t.tenantId, ({ tx }) =>
    tx.payoutTransferAttempt.findMany({ where: { transferId }, orderBy: { attempt: 'asc' } })
  )

/** Stripe takes back `amount` of one of its transfers (all that is left unless given) and says so: `transfer.reversed`. */
/** Runs a reconciliation of the last hour (and the next minute) for the centre, and answers its outcome. */
async function reconcileLastHour(t: Centre): Promise<object> {
  const window = { createdFrom: new Date(Date.now() - 3_600_000), createdTo: new Date(Date.now() + 60_000) }
  const run = await ok(t, 'POST', '/v1/reconciliation/runs', window, 202)
  return eventually(
    () => platform.temporal.workflow.getHandle(run.workflowId as string).result() as Promise<object>,
    60_000
  )
}

const reverse = (reference: string, amount?: number) => {
  stripeMock.reverseTransfer(reference, amount)
  return stripeMock.event('transfer.reversed', reference)
}

/** Settles [start, now) and answers its end and its (one) provider's result: runs of one tenant must not overlap. */
async function settleFrom(t: Centre, start: Date) {
  await new Promise((resolve) => setTimeout(resolve, 20))
  const end = new Date()
  const run = await ok(
    t,
    'POST',
    '/v1/marketplace/settlements',
    { currency: 'USD', periodStart: start.toISOString(), periodEnd: end.toISOString() },
    202
  )
  expect((await completed(t, run.id as string)).status).toBe('COMPLETED')
  const [mine] = (await ok(t, 'GET', `/v1/marketplace/settlements/${run.id}`)).providers as Array<
    Record<string, unknown>
  >
  return { id: run.id as string, end, provider: mine! }
}

describe('payout accounts', () => {
  // Issue 46, item 10: a payout from a provider's connected account to their bank that failed was not recorded.
  it("records a connected account's failed payout to the provider's bank and shows it on the payout account", async () => {
    const t = await newCentre()
    const providerId = await activeProvider(t, 'Pia SLP')
    const { accountId } = await ok(t, 'GET', `/v1/providers/${providerId}/payout-account`)
    expect(accountId).toMatch(/^acct_/)
    const payout = (id: string, created: number, code: string) => ({
      ...event('payout.failed', {
        id,
        object: 'payout',
        amount: 5_000,
        currency: 'usd',
        status: 'failed',
        failure_code: code,
        failure_message: 'The bank account has been closed.',
      }),
      created,
      account: accountId,
    })
    const now = Math.floor(Date.now() / 1000)
    expect(await deliver(payout('po_new', now, 'account_closed'), 'connect')).toBe('applied')
    expect(await deliver(payout('po_old', now - 3_600, 'no_account'), 'connect')).toBe('unchanged')
    expect(
      await deliver({ ...payout('po_other', now, 'account_closed'), account: 'acct_someone_else' }, 'connect')
    ).toBe('unknown_record')
    expect((await ok(t, 'GET', `/v1/providers/${providerId}/payout-account`)).failedPayout).toEqual({
      id: 'po_new',
      amount: 5_000,
      currency: 'USD',
      failureCode: 'account_closed',
      failureMessage: 'The bank account has been closed.',
      failedAt: new Date(now * 1000).toISOString(),
    })
  })

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
    stripeMock.seed({ ...enabled, object: 'account' }) // as Stripe holds it, asked about two events of one second
    expect(await deliver(event('account.updated', enabled))).toBe('applied')
    expect(await deliver(event('account.updated', enabled))).toBe('unchanged')
    expect(await ok(t, 'GET', `/v1/providers/${providerId}/payout-account`)).toMatchObject({ status: 'ACTIVE' })
    // A second later (events of one second are ordered by asking Stripe for the account: the next test).
    const restricted = { ...enabled, payouts_enabled: false }
    const later = Math.floor(Date.now() / 1000) + 1
    stripeMock.update(first.accountId, { payouts_enabled: false })
    expect(await deliver({ ...event('account.updated', restricted), created: later })).toBe('applied')
    expect(await ok(t, 'GET', `/v1/providers/${providerId}/payout-account`)).toMatchObject({ status: 'RESTRICTED' })
  })
  // Issue 46, item 7: an older account.updated delivered late re-enabled an account Stripe had restricted since.
  it('never re-enables a restricted account with an older account.updated delivered late', async () => {
    const t = await newCentre()
    const providerId = await activeProvider(t, 'Rui OT')
    const { accountId } = await ok(t, 'GET', `/v1/providers/${providerId}/payout-account`)
    const account = (payoutsEnabled: boolean) => ({
      id: accountId,
      object: 'account',
      payouts_enabled: payoutsEnabled,
      metadata: { tenant_id: t.tenantId, provider_id: providerId },
    })
    const now = Math.floor(Date.now() / 1000)
    expect(await deliver({ ...event('account.updated', account(false)), created: now + 5 })).toBe('applied')
    expect(await ok(t, 'GET', `/v1/providers/${providerId}/payout-account`)).toMatchObject({ status: 'RESTRICTED' })
    expect(await deliver({ ...event('account.updated', account(true)), created: now - 60 })).toBe('unchanged')
    expect(await ok(t, 'GET', `/v1/providers/${providerId}/payout-account`)).toMatchObject({ status: 'RESTRICTED' })
  })

  // Issue 46, item 7: two account.updated of one whole second were applied in the order they arrived, so an older one
  // (payouts enabled) arriving second re-enabled an account Stripe had restricted in the same second.
  it('asks Stripe for the account when two of its events share a second, and applies what Stripe holds', async () => {
    const t = await newCentre()
    const providerId = await activeProvider(t, 'Uma OT')
    const { accountId } = await ok(t, 'GET', `/v1/providers/${providerId}/payout-account`)
    const account = (payoutsEnabled: boolean) => ({
      id: accountId,
      object: 'account',
      payouts_enabled: payoutsEnabled,
      metadata: { tenant_id: t.tenantId, provider_id: providerId },
    })
    stripeMock.seed({ ...account(false), object: 'account' })
    const second = Math.floor(Date.now() / 1000) + 5
    expect(await deliver({ ...event('account.updated', account(false)), created: second })).toBe('applied')
    expect(await deliver({ ...event('account.updated', account(true)), created: second })).toBe('unchanged')
    expect(stripeMock.requests.some((r) => r.method === 'GET' && r.path.startsWith(`/v1/accounts/${accountId}`))).toBe(
      true
    )
    expect(await ok(t, 'GET', `/v1/providers/${providerId}/payout-account`)).toMatchObject({ status: 'RESTRICTED' })
  })
  it("refuses onboarding redirects that are not https or not on the tenant's domains, before calling Stripe", async () => {
    const t = await newCentre()
    const other = await newCentre()
    await registerDomain(other.tenantId, 'other-centre.example')
    const providerId = (await ok(t, 'POST', '/v1/providers', { name: 'Bo OT', timeZone: 'UTC' }, 201)).id as string
    const before = stripeMock.requests.length
    const link = (returnUrl: string, refreshUrl: string) =>
      platform.http.request('POST', `/v1/providers/${providerId}/payout-account`, {
        token: t.token,
        body: { returnUrl, refreshUrl },
      })

    const foreign = await link('https://other-centre.example/done', 'https://centre.example/again')
    expect(foreign.status).toBe(400)
    expect(foreign.body).toMatchObject({
      code: 'validation_error',
      errors: [{ path: 'returnUrl', code: 'host_not_allowed' }],
    })
    const plain = await link('https://centre.example/done', 'http://centre.example/again')
    expect(plain.status).toBe(400)
    expect(plain.body).toMatchObject({
      code: 'validation_error',
      errors: [{ path: 'refreshUrl', code: 'https_required' }],
    })
    // A look-alike host and a port of its own are other hosts.
    const lookalike = await link('https://centre.example.evil.example/done', 'https://centre.example:8443/again')
    expect(lookalike.status).toBe(400)
    expect((lookalike.body as { errors: { path: string }[] }).errors.map((e) => e.path)).toEqual([
      'returnUrl',
      'refreshUrl',
    ])
    expect(stripeMock.requests.length).toBe(before)

    // The platform's own host (PUBLIC_URL) is allowed too, over https.
    const own = new URL(platform.config.PUBLIC_URL).host
    await ok(t, 'POST', `/v1/providers/${providerId}/payout-account`, {
      returnUrl: `https://${own}/done`,
      refreshUrl: 'https://centre.example/again',
    })
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

    // Stripe takes all of Ana's transfer back; the operator sends it again, as a new transfer with a new key.
    const reversal = reverse(anaPayout.processorReference!)
    expect(reversal.data.object).toMatchObject({ amount: 2_500, amount_reversed: 2_500 })
    expect(await deliver(reversal)).toBe('applied')
    expect(await deliver(reversal)).toBe('duplicate')
    expect(await deliver(stripeMock.event('transfer.reversed', anaPayout.processorReference!))).toBe('unchanged')
    expect((await payouts(t, settlementId)).find((p) => p.id === anaPayout.id)).toMatchObject({
      status: 'REVERSED',
      amountReversed: 2_500,
    })
    expect(await ok(t, 'POST', `/v1/marketplace/payouts/${anaPayout.id}/retry`)).toMatchObject({
      status: 'PAID',
      attempt: 2,
    })
    const sentNow = transferRequests(t.tenantId)
    expect(sentNow.map((r) => r.idempotencyKey)).toEqual([
      `transfer:${t.tenantId}:${anaPayout.id}:1`,
      `transfer:${t.tenantId}:${benPayout.id}:2`,
      `transfer:${t.tenantId}:${anaPayout.id}:2`,
    ])
    expect(sentNow.map((r) => [r.form.amount, r.form['metadata[attempt]']])).toEqual([
      ['2500', '1'],
      ['1000', '2'],
      ['2500', '2'],
    ])
  })

  // Issue 46, item 3: payout_transfers and payout_transfer_attempts stored INTEGER amounts, so a payout past 2^31
  // minor units could not be recorded. Sent, reversed in part and retried at that size here.
  it('transfers, reverses and retries a payout past 2^31 minor units', async () => {
    const t = await newCentre()
    const ines = await activeProvider(t, 'Ines SLP')
    await ok(
      t,
      'POST',
      '/v1/marketplace/adjustments',
      { providerId: ines, amount: 5_000_000_000, currency: 'USD', reason: 'BONUS' },
      201
    )
    const settlementId = await settle(t)
    expect((await completed(t, settlementId)).status).toBe('COMPLETED')
    const [payout] = await payouts(t, settlementId)
    expect(payout).toMatchObject({ amount: 5_000_000_000, status: 'PAID', attempt: 1 })
    const reference = payout!.processorReference!
    expect(transferRequests(t.tenantId).map((r) => r.form.amount)).toEqual(['5000000000'])

    expect(await deliver(reverse(reference, 3_000_000_000))).toBe('applied')
    expect((await payouts(t, settlementId))[0]).toMatchObject({
      status: 'PARTIALLY_REVERSED',
      amountReversed: 3_000_000_000,
    })
    expect(await ok(t, 'POST', `/v1/marketplace/payouts/${payout!.id}/retry`)).toMatchObject({ status: 'PAID' })
    expect((await attemptsOf(t, payout!.id)).map((a) => [a.attempt, a.amount, a.status, a.amountReversed])).toEqual([
      [1, 5_000_000_000, 'PAID', 3_000_000_000],
      [2, 3_000_000_000, 'PAID', 0],
    ])
    const balance = await books(t)
    expect([balance(`payouts_in_transit:${ines}`), balance('clearing')]).toEqual([0, -5_000_000_000])
  })

  it('keeps what a partial reversal left paid, retries only what was taken back, and books money out only when paid', async () => {
    const t = await newCentre()
    const dora = await activeProvider(t, 'Dora SLP')
    const payable = `provider_payable:${dora}`
    const inTransit = `payouts_in_transit:${dora}`
    await ok(
      t,
      'POST',
      '/v1/marketplace/adjustments',
      { providerId: dora, amount: 5_000, currency: 'USD', reason: 'BONUS' },
      201
    )
    const settlementId = await settle(t)
    expect((await completed(t, settlementId)).status).toBe('COMPLETED')
    const [payout] = await payouts(t, settlementId)
    expect(payout).toMatchObject({ amount: 5_000, status: 'PAID', attempt: 1, amountReversed: 0 })
    // Settled: the payout left Dora's payable for money in transit; paid: it left the platform's clearing account.
    let balance = await books(t)
    expect([balance(payable), balance(inTransit), balance('clearing')]).toEqual([0, 0, -5_000])
    expect(await transferEntries(t, payout!.id)).toEqual([
      [
        { account: 'clearing', debit: 0, credit: 5_000 },
        { account: inTransit, debit: 5_000, credit: 0 },
      ],
    ])

    // Stripe takes 2,000 of it back: still paid in part, and the 2,000 are owed to Dora again, in transit.
    const reference = payout!.processorReference!
    expect(await deliver(reverse(reference, 2_000))).toBe('applied')
    expect(await deliver(stripeMock.event('transfer.reversed', reference))).toBe('unchanged')
    expect((await payouts(t, settlementId))[0]).toMatchObject({
      status: 'PARTIALLY_REVERSED',
      amountReversed: 2_000,
      processorReference: reference,
    })
    balance = await books(t)
    expect([balance(payable), balance(inTransit), balance('clearing')]).toEqual([0, -2_000, -3_000])

    // The operator's retry sends the 2,000 still owed, never the 5,000 again.
    const before = transferRequests(t.tenantId).length
    expect(await ok(t, 'POST', `/v1/marketplace/payouts/${payout!.id}/retry`)).toMatchObject({
      status: 'PAID',
      attempt: 2,
      amountReversed: 2_000,
    })
    const retried = transferRequests(t.tenantId).slice(before)
    expect(retried).toHaveLength(1)
    expect(retried[0]!.form).toMatchObject({ amount: '2000', 'metadata[attempt]': '2' })
    expect(retried[0]!.idempotencyKey).toBe(`transfer:${t.tenantId}:${payout!.id}:2`)
    expect((await attemptsOf(t, payout!.id)).map((a) => [a.attempt, a.amount, a.status, a.amountReversed])).toEqual([
      [1, 5_000, 'PAID', 2_000],
      [2, 2_000, 'PAID', 0],
    ])
    balance = await books(t)
    expect([balance(payable), balance(inTransit), balance('clearing')]).toEqual([0, 0, -5_000])
    expect(await ok(t, 'POST', `/v1/marketplace/payouts/${payout!.id}/retry`, undefined, 409)).toMatchObject({
      code: 'invalid_state_transition',
    })

    // Then Stripe takes back the whole second transfer: 2,000 owed again, the first transfer's 3,000 still paid.
    const second = (await attemptsOf(t, payout!.id))[1]!.processorReference!
    expect(await deliver(reverse(second))).toBe('applied')
    expect((await payouts(t, settlementId))[0]).toMatchObject({ status: 'PARTIALLY_REVERSED', amountReversed: 4_000 })
    balance = await books(t)
    expect([balance(payable), balance(inTransit), balance('clearing')]).toEqual([0, -2_000, -3_000])
    expect(await transferEntries(t, payout!.id)).toHaveLength(4) // paid, reversed, paid, reversed
  })

  // Issue 46, item 10: a reversal the platform made to recover what a provider owed (a clawback carried forward) was
  // booked as money owed to the provider again, in transit, and an operator's retry sent it back to them.
  it('books a reversal the platform made to recover a clawback as a recovery, never as money owed again', async () => {
    const t = await newCentre()
    const hal = await activeProvider(t, 'Hal OT')
    const adjust = (amount: number, reason: string) =>
      ok(t, 'POST', '/v1/marketplace/adjustments', { providerId: hal, amount, currency: 'USD', reason }, 201)
    await adjust(6_000, 'BONUS')
    const first = await settleFrom(t, new Date('2026-01-01T00:00:00Z'))
    const [payout] = await payouts(t, first.id)
    expect(payout).toMatchObject({ amount: 6_000, status: 'PAID' })
    await adjust(-2_500, 'CORRECTION')
    const second = await settleFrom(t, first.end)
    expect(second.provider).toMatchObject({ payoutAmount: 0, balanceAfter: -2_500 })

    // The platform takes 1,000 of what Hal owes back from the paid transfer, saying why in the reversal's metadata.
    const reference = payout!.processorReference!
    stripeMock.reverseTransfer(reference, 1_000, { purpose: 'recovery' })
    const recovered = stripeMock.event('transfer.reversed', reference)
    expect(await deliver(recovered)).toBe('applied')
    expect(await deliver(stripeMock.event('transfer.reversed', reference))).toBe('unchanged')
    expect((await payouts(t, first.id))[0]).toMatchObject({ status: 'PAID', amountReversed: 1_000 })
    let balance = await books(t)
    const accounts = () => [
      balance(`provider_payable:${hal}`),
      balance(`payouts_in_transit:${hal}`),
      balance('clearing'),
    ]
    expect(accounts()).toEqual([1_500, 0, -5_000])
    expect(await ok(t, 'POST', `/v1/marketplace/payouts/${payout!.id}/retry`, undefined, 409)).toMatchObject({
      code: 'invalid_state_transition',
    })

    // Then 2,000 more with no word why: the 1,500 Hal still owes is recovered, the other 500 is owed to Hal again.
    expect(await deliver(reverse(reference, 2_000))).toBe('applied')
    expect((await payouts(t, first.id))[0]).toMatchObject({ status: 'PARTIALLY_REVERSED', amountReversed: 3_000 })
    balance = await books(t)
    expect(accounts()).toEqual([0, -500, -3_000])
    expect((await attemptsOf(t, payout!.id)).map((a) => [a.amountReversed, a.amountRecovered])).toEqual([
      [3_000, 2_500],
    ])
    expect(await ok(t, 'POST', `/v1/marketplace/payouts/${payout!.id}/retry`)).toMatchObject({ status: 'PAID' })
    expect(transferRequests(t.tenantId).at(-1)!.form).toMatchObject({ amount: '500' })
  })

  // Issue 46, item 8: a reversal whose transfer.reversed never reached us was only ever reported, and the books kept the
  // money paid; the reconciliation repairs it through the event's own rules.
  it('has the reconciliation apply a reversal whose event was lost', async () => {
    const t = await newCentre()
    const ivy = await activeProvider(t, 'Ivy PT')
    await ok(
      t,
      'POST',
      '/v1/marketplace/adjustments',
      { providerId: ivy, amount: 3_000, currency: 'USD', reason: 'BONUS' },
      201
    )
    const first = await settleFrom(t, new Date('2026-01-01T00:00:00Z'))
    const [payout] = await payouts(t, first.id)
    reverse(payout!.processorReference!, 1_200) // Stripe's transfer.reversed is made, and never delivered
    expect(await reconcileLastHour(t)).toMatchObject({ findings: 0, repaired: 1 })
    expect((await payouts(t, first.id))[0]).toMatchObject({ status: 'PARTIALLY_REVERSED', amountReversed: 1_200 })
    const balance = await books(t)
    expect([balance(`payouts_in_transit:${ivy}`), balance('clearing')]).toEqual([-1_200, -1_800])
  })

  // Issue 58, item 5: Stripe embeds only a transfer's ten most recent reversals in it, and only those were read: a
  // recovery made before the last ten was taken for a reversal that says nothing, and owed to the provider again.
  it('counts recoveries past the ten reversals Stripe embeds in a transfer, from its event and from the reconciliation', async () => {
    const t = await newCentre()
    const [jo, kim] = [await activeProvider(t, 'Jo SLP'), await activeProvider(t, 'Kim OT')]
    const adjust = (providerId: string, amount: number, reason: string) =>
      ok(t, 'POST', '/v1/marketplace/adjustments', { providerId, amount, currency: 'USD', reason }, 201)
    for (const p of [jo, kim]) await adjust(p, 6_000, 'BONUS')
    const first = await settleFrom(t, new Date('2026-01-01T00:00:00Z'))
    const paid = await payouts(t, first.id)
    const payoutOf = (providerId: string) => paid.find((p) => p.providerId === providerId)!
    const [joTransfer, kimTransfer] = [payoutOf(jo).processorReference!, payoutOf(kim).processorReference!]
    // A correction of 1,100 each, which the centre's tool recovers from the paid transfer at once, in eleven
    // instalments of 100 tagged `purpose: recovery`, before a settlement nets it.
    for (const p of [jo, kim]) await adjust(p, -1_100, 'CORRECTION')
    const recoverInInstalments = async (reference: string, told: boolean) => {
      for (let i = 0; i < 11; i++) {
        stripeMock.reverseTransfer(reference, 100, { purpose: 'recovery' })
        if (told) expect(await deliver(stripeMock.event('transfer.reversed', reference))).toBe('applied')
      }
    }
    const recovered = async (providerId: string) => {
      const payout = payoutOf(providerId)
      expect((await payouts(t, first.id)).find((p) => p.id === payout.id)).toMatchObject({
        status: 'PAID',
        amountReversed: 1_100,
      })
      expect((await attemptsOf(t, payout.id)).map((a) => [a.amountReversed, a.amountRecovered])).toEqual([
        [1_100, 1_100],
      ])
    }

    // Jo's each come with their event; the eleventh's transfer embeds the last ten only, and the rest are read.
    await recoverInInstalments(joTransfer, true)
    expect(stripeMock.get(joTransfer).reversals).toMatchObject({ has_more: true })
    await recovered(jo)
    const listed = stripeMock.requests.filter((r) => r.path.startsWith(`/v1/transfers/${joTransfer}/reversals?`))
    expect(listed.map((r) => r.path)).toEqual([expect.stringContaining('starting_after=trr_')])

    // Kim's events are lost: the reconciliation lists the transfer, with all its reversals, and repairs it.
    await recoverInInstalments(kimTransfer, false)
    expect(await reconcileLastHour(t)).toMatchObject({ findings: 0, repaired: 1 })
    await recovered(kim)

    // Nothing is owed again: not in transit, no retry; the next settlement nets each correction with its recovery.
    let balance = await books(t)
    for (const p of [jo, kim])
      expect([balance(`provider_payable:${p}`), balance(`payouts_in_transit:${p}`)]).toEqual([-1_100, 0])
    expect(await ok(t, 'POST', `/v1/marketplace/payouts/${payoutOf(jo).id}/retry`, undefined, 409)).toMatchObject({
      code: 'invalid_state_transition',
    })
    const second = await settleFrom(t, first.end)
    const settled = (await ok(t, 'GET', `/v1/marketplace/settlements/${second.id}`)).providers as unknown[]
    expect(settled).toEqual([
      expect.objectContaining({ payoutAmount: 0, balanceAfter: 0 }),
      expect.objectContaining({ payoutAmount: 0, balanceAfter: 0 }),
    ])
    balance = await books(t)
    for (const p of [jo, kim]) expect(balance(`provider_payable:${p}`)).toBe(0)
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
      expect((await attemptsOf(t, list[0]!.id)).map((a) => [a.attempt, a.amount, a.status])).toEqual([
        [1, 4_200, 'PAID'],
      ])
      expect(await transferEntries(t, list[0]!.id)).toHaveLength(1)
    } finally {
      stripeMock.release()
    }
  }, 180_000)

  it('looks at Stripe before sending again an attempt left unanswered past the idempotency window, and records what it made', async () => {
    const t = await newCentre()
    const eve = await activeProvider(t, 'Eve OT')
    await ok(
      t,
      'POST',
      '/v1/marketplace/adjustments',
      { providerId: eve, amount: 3_300, currency: 'USD', reason: 'BONUS' },
      201
    )
    stripeMock.holding = '/v1/transfers'
    try {
      const settlementId = await settle(t)
      await eventually(async () => (transferRequests(t.tenantId).length > 0 ? true : undefined), 30_000)
      await platform.killWorkers('SIGKILL')
      // The worker died waiting for Stripe, which made the transfer; nobody came back to it for more than a day, so
      // Stripe may have forgotten the attempt's idempotency key by now.
      const [transfer] = await runInUnitOfWork(platform.db, t.tenantId, ({ tx }) => tx.payoutTransfer.findMany())
      const [attempt] = await attemptsOf(t, transfer!.id)
      expect(attempt).toMatchObject({ attempt: 1, amount: 3_300, status: 'PENDING', firstSentAt: expect.any(Date) })
      await runInUnitOfWork(platform.db, t.tenantId, ({ tx }) =>
        tx.payoutTransferAttempt.update({
          where: { id: attempt!.id },
          data: { firstSentAt: new Date(Date.now() - 25 * 3_600_000) },
        })
      )
      const before = stripeMock.requests.length
      stripeMock.release()
      await eventually(
        async () =>
          stripeMock.objects('transfer').some((o) => o.metadata.transfer_id === transfer!.id) ? true : undefined,
        10_000
      )
      await platform.startWorker()
      expect((await completed(t, settlementId, 120_000)).status).toBe('COMPLETED')

      // Stripe was asked for the settlement's transfers, found attempt 1 there, and was sent nothing again.
      const made = stripeMock.objects('transfer').filter((o) => o.metadata.transfer_id === transfer!.id)
      expect(made).toEqual([
        expect.objectContaining({ amount: 3_300, metadata: expect.objectContaining({ attempt: '1' }) }),
      ])
      const after = stripeMock.requests.slice(before).filter((r) => r.path.startsWith('/v1/transfers'))
      expect(after.map((r) => `${r.method} ${r.path.split('?')[0]}`)).toEqual(['GET /v1/transfers'])
      expect(after[0]!.path).toContain(`transfer_group=${settlementId}`)
      expect((await attemptsOf(t, transfer!.id)).map((a) => [a.attempt, a.status, a.processorReference])).toEqual([
        [1, 'PAID', made[0]!.id],
      ])
      expect((await payouts(t, settlementId))[0]).toMatchObject({ status: 'PAID', attempt: 1 })
      expect(await transferEntries(t, transfer!.id)).toHaveLength(1) // paid once in the books
    } finally {
      stripeMock.release()
    }
  }, 180_000)

  it('sends an attempt Stripe does not have past the idempotency window again as a new attempt with a new key', async () => {
    const t = await newCentre()
    const finn = (await ok(t, 'POST', '/v1/providers', { name: 'Finn PT', timeZone: 'UTC' }, 201)).id as string
    await ok(
      t,
      'POST',
      '/v1/marketplace/adjustments',
      { providerId: finn, amount: 1_700, currency: 'USD', reason: 'BONUS' },
      201
    )
    const settlementId = await settle(t)
    expect((await completed(t, settlementId)).status).toBe('COMPLETED')
    const [blocked] = await payouts(t, settlementId)
    expect(blocked).toMatchObject({ status: 'BLOCKED', attempt: 1 })
    const { accountId } = await activate(t, finn)
    // An operator's retry recorded its attempt and the API died before the request left; a day passed.
    await runInUnitOfWork(platform.db, t.tenantId, async ({ tx }) => {
      await tx.payoutTransfer.update({
        where: { id: blocked!.id },
        data: { status: 'PENDING', attempt: 2, accountId, failureMessage: null },
      })
      await tx.payoutTransferAttempt.create({
        data: {
          id: newId('payoutAttempt'),
          tenantId: t.tenantId,
          transferId: blocked!.id,
          attempt: 2,
          amount: 1_700,
          currency: 'USD',
          accountId,
          idempotencyKey: `transfer:${t.tenantId}:${blocked!.id}:2`,
          status: 'PENDING',
          firstSentAt: new Date(Date.now() - 25 * 3_600_000),
        },
      })
    })
    // The transfer is sent as the settlement's activity sends it, by the same code, with Stripe's own client.
    const stripe = stripeProcessor({
      secretKey: 'sk_test_123',
      webhookSecret: centres.webhookSecrets.platform,
      apiBase: stripeMock.url,
    })
    const before = stripeMock.requests.length
    expect(await sendPayout(platform.db, t.tenantId, blocked!.id, stripe, new Date())).toBe('PAID')
    const sent = stripeMock.requests.slice(before)
    expect(sent.map((r) => `${r.method} ${r.path.split('?')[0]}`)).toEqual(['GET /v1/transfers', 'POST /v1/transfers'])
    expect(sent[1]!.idempotencyKey).toBe(`transfer:${t.tenantId}:${blocked!.id}:3`)
    expect(sent[1]!.form).toMatchObject({ amount: '1700', 'metadata[attempt]': '3' })
    expect((await attemptsOf(t, blocked!.id)).map((a) => [a.attempt, a.amount, a.status])).toEqual([
      [2, 1_700, 'FAILED'],
      [3, 1_700, 'PAID'],
    ])
    expect((await payouts(t, settlementId))[0]).toMatchObject({ status: 'PAID', attempt: 3 })
    // Sending it again changes nothing: the transfer is paid.
    expect(await sendPayout(platform.db, t.tenantId, blocked!.id, stripe, new Date())).toBe('PAID')
    expect(stripeMock.requests.length).toBe(before + 2)
    const balance = await books(t)
    expect(balance(`payouts_in_transit:${finn}`)).toBe(0)
    expect(await transferEntries(t, blocked!.id)).toHaveLength(1)
  })
})

// Issue 58, item 1: a payout in ISO minor units Stripe cannot transfer (1,141.45 HUF: Stripe pays HUF out in whole
// forints) was refused before Stripe was called, FAILED, and an operator's retry sent the same amount again; the money
// sat in payouts_in_transit with no finding.
describe('payouts Stripe can make', () => {
  const bonus = (t: Centre, providerId: string, amount: number) =>
    ok(t, 'POST', '/v1/marketplace/adjustments', { providerId, amount, currency: 'HUF', reason: 'BONUS' }, 201)

  /** Settles [start, now) in HUF, waits for it, and answers its end and its one provider's result. */
  async function settleHuf(t: Centre, start: Date) {
    await new Promise((resolve) => setTimeout(resolve, 20)) // periodEnd must have passed the adjustments
    const end = new Date()
    const body = { currency: 'HUF', periodStart: start.toISOString(), periodEnd: end.toISOString() }
    const run = await ok(t, 'POST', '/v1/marketplace/settlements', body, 202)
    expect((await completed(t, run.id as string)).status).toBe('COMPLETED')
    const [mine] = (await ok(t, 'GET', `/v1/marketplace/settlements/${run.id}`)).providers as Array<
      Record<string, unknown>
    >
    return { id: run.id as string, end, provider: mine! }
  }

  it('pays out whole forints and carries the remainder on the payable balance into the next settlement', async () => {
    const t = await newCentre()
    const hedda = await activeProvider(t, 'Hedda SLP')
    const payable = `provider_payable:${hedda}`
    const inTransit = `payouts_in_transit:${hedda}`
    await bonus(t, hedda, 114_145) // what a 1,234.00 HUF session pays at a 7.5% fee
    const first = await settleHuf(t, new Date('2026-01-01T00:00:00Z'))
    expect(first.provider).toMatchObject({
      netAmount: 114_145,
      carriedForward: 0,
      payoutAmount: 114_100,
      payoutRemainder: 45,
      balanceAfter: 45,
    })
    const [transfer] = await payouts(t, first.id)
    expect(transfer).toMatchObject({ amount: 114_100, currency: 'HUF', status: 'PAID', amountCarried: 0 })
    expect(transferRequests(t.tenantId).map((r) => [r.form.amount, r.form.currency])).toEqual([['114100', 'huf']])
    let balance = await books(t, 'HUF')
    expect([balance(payable), balance(inTransit), balance('clearing')]).toEqual([-45, 0, -114_100])

    // The next settlement starts from the 0.45 HUF left and pays it with what was earned since.
    await bonus(t, hedda, 1_055)
    const second = await settleHuf(t, first.end)
    expect(second.provider).toMatchObject({
      carriedForward: 45,
      netAmount: 1_055,
      payoutAmount: 1_100,
      payoutRemainder: 0,
      balanceAfter: 0,
    })
    expect(transferRequests(t.tenantId).map((r) => r.form.amount)).toEqual(['114100', '1100'])
    balance = await books(t, 'HUF')
    expect([balance(payable), balance(inTransit), balance('clearing')]).toEqual([0, 0, -115_200])
  })

  it('retries what is transferable of a refused payout, carries the rest, and records a finding for the refusal', async () => {
    const t = await newCentre()
    const imre = await activeProvider(t, 'Imre OT')
    const payable = `provider_payable:${imre}`
    const inTransit = `payouts_in_transit:${imre}`
    await bonus(t, imre, 500_000)
    const first = await settleHuf(t, new Date('2026-01-01T00:00:00Z'))
    const [payout] = await payouts(t, first.id)
    expect(payout).toMatchObject({ amount: 500_000, status: 'PAID' })

    // Stripe takes back 141.45 HUF of it (a reversal is not held to whole forints): owed again, in transit.
    expect(await deliver(reverse(payout!.processorReference!, 14_145))).toBe('applied')
    expect((await payouts(t, first.id))[0]).toMatchObject({ status: 'PARTIALLY_REVERSED', amountReversed: 14_145 })

    // A send Stripe refuses (its balance is short): FAILED, and a finding says the money waits in transit.
    const stripe = stripeProcessor({
      secretKey: 'sk_test_123',
      webhookSecret: centres.webhookSecrets.platform,
      apiBase: stripeMock.url,
    })
    const refusing = {
      ...stripe,
      createTransfer: () =>
        Promise.reject(new PayoutRefusedError('You have insufficient funds in your Stripe account for this transfer.')),
    }
    await runInUnitOfWork(platform.db, t.tenantId, ({ tx }) =>
      tx.payoutTransfer.update({ where: { id: payout!.id }, data: { status: 'PENDING', attempt: 2 } })
    )
    expect(await sendPayout(platform.db, t.tenantId, payout!.id, refusing, new Date())).toBe('FAILED')
    const findings = await runInUnitOfWork(platform.db, t.tenantId, ({ tx }) =>
      tx.reconciliationFinding.findMany({ where: { objectId: payout!.id } })
    )
    expect(findings).toEqual([
      expect.objectContaining({
        kind: 'PAYOUT_FAILED',
        objectType: 'TRANSFER',
        status: 'OPEN',
        ours: { amount: 14_145, currency: 'HUF', status: 'FAILED' },
        detail: expect.stringContaining('insufficient funds'),
      }),
    ])

    // The operator's retry recomputes what is owed: 141 HUF sent, 0.45 HUF back on the payable balance.
    const before = transferRequests(t.tenantId).length
    expect(await ok(t, 'POST', `/v1/marketplace/payouts/${payout!.id}/retry`)).toMatchObject({
      status: 'PAID',
      attempt: 3,
      amountCarried: 45,
    })
    expect(
      transferRequests(t.tenantId)
        .slice(before)
        .map((r) => r.form.amount)
    ).toEqual(['14100'])
    expect((await attemptsOf(t, payout!.id)).map((a) => [a.attempt, a.amount, a.status])).toEqual([
      [1, 500_000, 'PAID'],
      [2, 14_145, 'FAILED'],
      [3, 14_100, 'PAID'],
    ])
    let balance = await books(t, 'HUF')
    expect([balance(payable), balance(inTransit), balance('clearing')]).toEqual([-45, 0, -499_955])
    expect(await ok(t, 'POST', `/v1/marketplace/payouts/${payout!.id}/retry`, undefined, 409)).toMatchObject({
      code: 'invalid_state_transition',
    })

    // The next settlement pays the 0.45 HUF carried with what was earned since.
    await bonus(t, imre, 155)
    const second = await settleHuf(t, first.end)
    expect(second.provider).toMatchObject({ carriedForward: 45, payoutAmount: 200, payoutRemainder: 0 })
    balance = await books(t, 'HUF')
    expect([balance(payable), balance(inTransit)]).toEqual([0, 0])
  })
})

// Issue 78, item 1: a centre whose Stripe balance keeps euros is paid by US families in dollars. Stripe transfers only
// from what the balance holds, so a payout in dollars was refused (FAILED, a finding, the provider unpaid). It is sent
// in euros at the rate of the charges that paid the settlement's sessions; the settlement stays in dollars.
describe('payouts from a balance Stripe converted (issue 78, item 1)', () => {
  it('sends the payout in the currency the balance keeps, at the charges’ rate, and maps a reversal back', async () => {
    stripeMock.settleIn({ currency: 'eur', rate: 0.9 })
    try {
      await convertedPayouts()
    } finally {
      stripeMock.settleIn(null)
    }
  })

  async function convertedPayouts() {
    const t = await newCentre()
    const juno = await activeProvider(t, 'Juno SLP')
    const inTransit = `payouts_in_transit:${juno}`
    const start = new Date()
    await centres.paidSession(t, juno, 10_000) // kept as 90.00 EUR
    stripeMock.settleIn({ currency: 'eur', rate: 0.92 })
    await centres.paidSession(t, juno, 5_000) // kept as 46.00 EUR
    const first = await settleFrom(t, start)
    const payout = first.provider.payoutAmount as number
    expect(payout).toBeGreaterThan(0)
    // Each session at its charge's rate, weighted by its gross: (9,000 + 4,600) / 15,000 EUR cents per US cent.
    const rate = 13_600 / 15_000
    const sent = Math.round(payout * rate)
    const [transfer] = await payouts(t, first.id)
    expect(transfer).toMatchObject({
      amount: payout,
      currency: 'USD',
      status: 'PAID',
      sent: { currency: 'EUR', amount: sent },
    })
    expect((transfer!.sent as { rate: number }).rate).toBeCloseTo(rate, 12)
    expect(transferRequests(t.tenantId).map((r) => [r.form.amount, r.form.currency])).toEqual([[String(sent), 'eur']])
    // Dollars leave transit through fx_conversion; euros leave clearing, as they left Stripe's balance.
    const dollars = await books(t, 'USD')
    expect([dollars(inTransit), dollars('clearing'), dollars('fx_conversion')]).toEqual([0, 0, 15_000 - payout])
    const [paid] = await transferEntries(t, transfer!.id)
    expect(paid).toEqual(
      expect.arrayContaining([
        { account: inTransit, debit: payout, credit: 0 },
        { account: 'clearing', debit: 0, credit: sent },
      ])
    )

    // Stripe takes back 10.00 EUR of it: that share of the dollars is owed again, and a retry sends it in euros.
    expect(await deliver(reverse(transfer!.processorReference!, 1_000))).toBe('applied')
    const owedAgain = Math.round((1_000 * payout) / sent)
    expect((await payouts(t, first.id))[0]).toMatchObject({
      status: 'PARTIALLY_REVERSED',
      amountReversed: owedAgain,
      sent: { currency: 'EUR', amount: sent - 1_000 },
    })
    const before = transferRequests(t.tenantId).length
    const retried = await ok(t, 'POST', `/v1/marketplace/payouts/${transfer!.id}/retry`)
    expect(retried).toMatchObject({ status: 'PAID', attempt: 2 })
    expect(
      transferRequests(t.tenantId)
        .slice(before)
        .map((r) => [r.form.amount, r.form.currency])
    ).toEqual([[String(Math.round(owedAgain * rate)), 'eur']])
    expect((await books(t, 'USD'))(inTransit)).toBe(0)

    // A settlement of an adjustment alone has no charge of its own: it follows the latest charge, kept in euros at 0.92.
    await ok(
      t,
      'POST',
      '/v1/marketplace/adjustments',
      { providerId: juno, amount: 1_000, currency: 'USD', reason: 'BONUS' },
      201
    )
    const second = await settleFrom(t, first.end)
    expect(second.provider).toMatchObject({ payoutAmount: 1_000 })
    expect((await payouts(t, second.id))[0]).toMatchObject({
      status: 'PAID',
      sent: { currency: 'EUR', rate: 0.92, amount: 920 },
    })
    // The books against Stripe's, euros included, are checked after the test (afterEach).
  }
})

// Issue 58, item 5: a session line was earned at the later of its completion and its payments' *creation*, so a card
// payment started before a period's end and completed by its payer after that period was settled was back-dated into
// it: a settlement of that period made after the money came (for a provider it had not settled) paid it, and one made
// before left it to the next settlement with an instant of the period before.
describe('a card session is earned when its money arrives (issue 58, item 5)', () => {
  const START = new Date('2026-01-01T00:00:00Z')

  /** The tenant's session items: whose, the period of the settlement that paid each, and when each was earned. */
  const sessionItems = (t: Centre) =>
    runInUnitOfWork(platform.db, t.tenantId, ({ tx }) =>
      tx.settlementItem.findMany({
        where: { kind: 'SESSION' },
        select: {
          amount: true,
          earnedAt: true,
          providerSettlement: { select: { providerId: true, periodStart: true, periodEnd: true } },
        },
        orderBy: { amount: 'asc' },
      })
    )

  it('pays a card payment made after its period was settled in the next period, never in the settled one', async () => {
    const t = await newCentre()
    const [gia, ben] = await Promise.all([activeProvider(t, 'Gia SLP'), activeProvider(t, 'Ben OT')])
    await centres.paidSession(t, gia, 4_000)
    // Both payers open the card form before period 1 ends, and pay once it was settled.
    const late = [await centres.sessionAwaitingCard(t, gia, 10_000), await centres.sessionAwaitingCard(t, ben, 6_000)]
    const first = await settleFrom(t, START)
    expect(first.provider).toMatchObject({ providerId: gia, sessionCount: 1, grossAmount: 4_000 })
    for (const { intentId } of late) {
      stripeMock.setIntentStatus(intentId, 'succeeded')
      expect(await deliver(stripeMock.event('payment_intent.succeeded', intentId))).toBe('applied')
    }

    // Period 1 once more for Ben, whom it did not settle (a run of its own): his money came after its end, so period
    // 1 holds none of it, however late it is settled.
    const period1 = { currency: 'USD', periodStart: START.toISOString(), periodEnd: first.end.toISOString() }
    const again = await ok(t, 'POST', '/v1/marketplace/settlements', { ...period1, providerIds: [ben] }, 202)
    expect((await completed(t, again.id as string)).providers).toEqual([
      expect.objectContaining({ providerId: ben, outcome: 'SETTLED', sessionCount: 0, grossAmount: 0 }),
    ])

    // Period 2 pays both sessions, each earned within it; period 1 keeps its one.
    const second = await settleFrom(t, first.end)
    expect((await ok(t, 'GET', `/v1/marketplace/settlements/${second.id}`)).totals).toMatchObject({
      providers: 2,
      sessionCount: 2,
      grossAmount: 16_000,
      payoutAmount: 16_000,
    })
    const items = (await sessionItems(t)).map(({ amount, earnedAt, providerSettlement: ps }) => ({
      providerId: ps.providerId,
      amount,
      periodEnd: ps.periodEnd,
      earnedInPeriod: earnedAt >= ps.periodStart && earnedAt < ps.periodEnd,
    }))
    expect(items).toEqual([
      { providerId: gia, amount: 4_000, periodEnd: first.end, earnedInPeriod: true },
      { providerId: ben, amount: 6_000, periodEnd: second.end, earnedInPeriod: true },
      { providerId: gia, amount: 10_000, periodEnd: second.end, earnedInPeriod: true },
    ])
  })
})

// Issue 46, item 1: a lost dispute changed only the payment's dispute status, so the order stayed fully paid and the
// provider kept the whole session while Stripe had taken the money (and its dispute fee) back.
describe('a lost dispute (chargeback)', () => {
  /** A completed session of `providerId` on an order of `amount`, paid by card through Stripe. */
  const paidSession = (t: Centre, providerId: string, amount: number) => centres.paidSession(t, providerId, amount)

  const itemsOf = (t: Centre, kinds: string[]) =>
    runInUnitOfWork(
      platform.db,
      t.tenantId,
      ({ tx }) =>
        tx.$queryRaw<Array<{ kind: string; amount: number; fee: number }>>`
        SELECT kind::text, amount::float8, fee_amount::float8 AS fee FROM settlement_items
        WHERE kind::text = ANY(${kinds}::text[]) ORDER BY created_at, kind`
    )

  it('is taken back from the provider after the payout, the fee is the centre’s, and given back when Stripe reinstates it', async () => {
    const t = await newCentre()
    const gia = await activeProvider(t, 'Gia SLP')
    await ok(t, 'POST', '/v1/marketplace/fee-rules', { percentBps: 1000 }, 201)
    const session = await paidSession(t, gia, 10_000)
    // Another session's payment is lost to a dispute before any settlement: taken back in the same run, never paid.
    const early = await paidSession(t, gia, 4_000)
    const lostEarly = stripeMock.addDispute({ paymentIntent: early.intentId, status: 'lost' })
    expect(await deliver(stripeMock.event('charge.dispute.closed', lostEarly.id))).toBe('applied')
    const first = await settleFrom(t, new Date('2026-01-01T00:00:00Z'))
    expect(first.provider).toMatchObject({
      grossAmount: 14_000,
      feeAmount: 1_400,
      refundAmount: 4_000,
      feeRefundAmount: 400,
      payoutAmount: 9_000,
    })

    // The payer's bank wins the chargeback: Stripe keeps the 10,000 and a 1,500 dispute fee.
    const dispute = stripeMock.addDispute({ paymentIntent: session.intentId, status: 'lost' })
    stripeMock.update(dispute.id, {
      balance_transactions: [{ id: 'txn_dispute', amount: -11_500, fee: 1_500, currency: 'usd' }],
    })
    expect(await deliver(stripeMock.event('charge.dispute.closed', dispute.id))).toBe('applied')
    expect(await ok(t, 'GET', `/v1/orders/${session.orderId}`)).toMatchObject({
      amountPaid: 10_000,
      amountChargedBack: 10_000,
    })
    expect(await ok(t, 'GET', `/v1/payments/${session.paymentId}`)).toMatchObject({
      dispute: { status: 'LOST', amount: 10_000, amountLost: 10_000, fee: 1_500 },
    })

    // The next settlement takes the session back from Gia, with the platform fee on it returned; never the 1,500.
    const second = await settleFrom(t, first.end)
    expect(second.provider).toMatchObject({
      refundAmount: 10_000,
      feeRefundAmount: 1_000,
      netAmount: -9_000,
      payoutAmount: 0,
      balanceAfter: -9_000,
    })
    expect(await itemsOf(t, ['CHARGEBACK'])).toEqual([
      { kind: 'CHARGEBACK', amount: 4_000, fee: 400 },
      { kind: 'CHARGEBACK', amount: 10_000, fee: 1_000 },
    ])
    let balance = await books(t)
    expect(balance(`provider_payable:${gia}`)).toBe(9_000)

    // Stripe reinstates the funds (the dispute won after all): the next settlement gives it back, once.
    stripeMock.update(dispute.id, { status: 'won' })
    expect(await deliver(stripeMock.event('charge.dispute.funds_reinstated', dispute.id))).toBe('applied')
    expect(await ok(t, 'GET', `/v1/orders/${session.orderId}`)).toMatchObject({ amountChargedBack: 0 })
    const third = await settleFrom(t, second.end)
    expect(third.provider).toMatchObject({ refundAmount: -10_000, feeRefundAmount: -1_000, balanceAfter: 0 })
    expect(await itemsOf(t, ['CHARGEBACK_REVERSAL'])).toEqual([
      { kind: 'CHARGEBACK_REVERSAL', amount: 10_000, fee: 1_000 },
    ])
    balance = await books(t)
    expect(balance(`provider_payable:${gia}`)).toBe(0)
  })

  // Issue 58, item 5: on an account settling in another currency, the balance transactions were filtered out by the
  // dispute's currency, so the fee read 0 and a reinstatement went unseen (the chargeback stayed on the order).
  it('reads the fee and a reinstatement from balance transactions in the currency the account settles in', async () => {
    const t = await newCentre()
    const gia = await activeProvider(t, 'Gia SLP')
    const session = await paidSession(t, gia, 10_000)
    // The account settles in euros: Stripe withdrew 9,000 EUR for the 10,000 USD and charged a 13.50 EUR fee.
    const eur = { currency: 'eur', exchange_rate: 0.9 }
    const withdrawn = { id: 'txn_fx_out', amount: -10_350, fee: 1_350, ...eur }
    const dispute = stripeMock.addDispute({ paymentIntent: session.intentId, status: 'lost' })
    stripeMock.update(dispute.id, { balance_transactions: [withdrawn] })
    expect(await deliver(stripeMock.event('charge.dispute.closed', dispute.id))).toBe('applied')
    expect(await ok(t, 'GET', `/v1/payments/${session.paymentId}`)).toMatchObject({
      dispute: { status: 'LOST', amountLost: 10_000, fee: 1_500 },
    })
    expect(await ok(t, 'GET', `/v1/orders/${session.orderId}`)).toMatchObject({ amountChargedBack: 10_000 })

    // Stripe gives the funds back (its status still `lost`, the reinstating transaction in euros, the fee refunded).
    const back = { id: 'txn_fx_back', amount: 9_000, fee: -1_350, ...eur }
    stripeMock.update(dispute.id, { balance_transactions: [withdrawn, back] })
    expect(await deliver(stripeMock.event('charge.dispute.updated', dispute.id))).toBe('applied')
    expect(await ok(t, 'GET', `/v1/payments/${session.paymentId}`)).toMatchObject({
      dispute: { status: 'WON', fee: 0 },
    })
    expect(await ok(t, 'GET', `/v1/orders/${session.orderId}`)).toMatchObject({ amountChargedBack: 0 })
  })

  /** The tenant's chargeback items, each with the Stripe dispute it took or gave back. */
  const chargebackItems = (t: Centre) =>
    runInUnitOfWork(
      platform.db,
      t.tenantId,
      ({ tx }) =>
        tx.$queryRaw<Array<{ kind: string; dispute: string; amount: number; fee: number }>>`
        SELECT si.kind::text, d.processor_reference AS dispute, si.amount::float8, si.fee_amount::float8 AS fee
        FROM settlement_items si JOIN payment_disputes d ON d.id = si.dispute_id AND d.tenant_id = si.tenant_id
        ORDER BY si.created_at, si.kind, si.order_line_id`
    )

  // Issue 58, item 3: a payment held one dispute, and the dispute machine never compared dispute ids: a chargeback
  // lost after an inquiry closed on the same charge met the inquiry's final CLOSED and was never charged back.
  it('charges back a dispute lost after an inquiry of the same charge closed, each dispute on its own', async () => {
    const t = await newCentre()
    const gia = await activeProvider(t, 'Gia SLP')
    await ok(t, 'POST', '/v1/marketplace/fee-rules', { percentBps: 1000 }, 201)
    const session = await paidSession(t, gia, 10_000)
    // An inquiry (Stripe's early warning), closed by Stripe without a chargeback.
    const inquiry = stripeMock.addDispute({ paymentIntent: session.intentId, status: 'warning_needs_response' })
    expect(await deliver(stripeMock.event('charge.dispute.created', inquiry.id))).toBe('applied')
    stripeMock.update(inquiry.id, { status: 'warning_closed' })
    expect(await deliver(stripeMock.event('charge.dispute.closed', inquiry.id))).toBe('applied')
    const first = await settleFrom(t, new Date('2026-01-01T00:00:00Z'))
    expect(first.provider).toMatchObject({
      grossAmount: 10_000,
      feeAmount: 1_000,
      refundAmount: 0,
      payoutAmount: 9_000,
    })

    // Then the payer's bank opens a chargeback of 4,000 of the same charge (another dp_ id) and wins it.
    const chargeback = stripeMock.addDispute({ paymentIntent: session.intentId, amount: 4_000 })
    expect(await deliver(stripeMock.event('charge.dispute.created', chargeback.id))).toBe('applied')
    stripeMock.update(chargeback.id, { status: 'lost' })
    expect(await deliver(stripeMock.event('charge.dispute.closed', chargeback.id))).toBe('applied')
    expect(await ok(t, 'GET', `/v1/orders/${session.orderId}`)).toMatchObject({ amountChargedBack: 4_000 })
    const payment = await ok(t, 'GET', `/v1/payments/${session.paymentId}`)
    expect(payment.disputes).toEqual([
      expect.objectContaining({ processorReference: inquiry.id, status: 'CLOSED', amount: 10_000, amountLost: 0 }),
      expect.objectContaining({ processorReference: chargeback.id, status: 'LOST', amount: 4_000, amountLost: 4_000 }),
    ])
    expect(payment.dispute).toMatchObject({ processorReference: chargeback.id, status: 'LOST' })

    // The provider's next settlement takes the chargeback's 4,000 back, with the platform fee on it returned.
    const second = await settleFrom(t, first.end)
    expect(second.provider).toMatchObject({ refundAmount: 4_000, feeRefundAmount: 400, netAmount: -3_600 })
    expect(await chargebackItems(t)).toEqual([{ kind: 'CHARGEBACK', dispute: chargeback.id, amount: 4_000, fee: 400 }])

    // A third dispute of the charge, lost too, is taken once more; the chargeback's funds then come back: the
    // settlement after gives back its 4,000 only, and the third stays taken.
    const third = stripeMock.addDispute({ paymentIntent: session.intentId, amount: 1_000, status: 'lost' })
    expect(await deliver(stripeMock.event('charge.dispute.closed', third.id))).toBe('applied')
    expect(await ok(t, 'GET', `/v1/orders/${session.orderId}`)).toMatchObject({ amountChargedBack: 5_000 })
    const fourth = await settleFrom(t, second.end)
    expect(fourth.provider).toMatchObject({ refundAmount: 1_000, feeRefundAmount: 100 })
    stripeMock.update(chargeback.id, { status: 'won' })
    expect(await deliver(stripeMock.event('charge.dispute.funds_reinstated', chargeback.id))).toBe('applied')
    expect(await ok(t, 'GET', `/v1/orders/${session.orderId}`)).toMatchObject({ amountChargedBack: 1_000 })
    const fifth = await settleFrom(t, fourth.end)
    expect(fifth.provider).toMatchObject({ refundAmount: -4_000, feeRefundAmount: -400 })
    expect(await chargebackItems(t)).toEqual([
      { kind: 'CHARGEBACK', dispute: chargeback.id, amount: 4_000, fee: 400 },
      { kind: 'CHARGEBACK', dispute: third.id, amount: 1_000, fee: 100 },
      { kind: 'CHARGEBACK_REVERSAL', dispute: chargeback.id, amount: 4_000, fee: 400 },
    ])
    const balance = await books(t)
    expect(balance(`provider_payable:${gia}`)).toBe(900)
  })
})
