/**
 * The Stripe adapter (adapters/stripe/): how Stripe's signed events map to what the platform acts on (signatures made
 * with Stripe's own library, no network), and which processor a configuration selects (adapters/online-processors.ts).
 */
import Stripe from 'stripe'
import { describe, expect, it } from 'vitest'
import { onlineProcessorFrom } from '../../../../adapters/online-processors.ts'
import { chargeCostOf, disputeOf, failureCodeOf } from '../../../../adapters/stripe/stripe-objects.ts'
import { stripeProcessor } from '../../../../adapters/stripe/stripe-processor.ts'
import { ProcessorSignatureError } from '../../../../domain/payments/online-processor.ts'
import { loadConfig } from '../../../../infra/config.ts'

describe('Stripe events', () => {
  const secret = 'whsec_unit'
  const processor = stripeProcessor({ secretKey: 'sk_test_unit', webhookSecret: secret })
  const signer = new Stripe('sk_test_unit')
  const sign = (event: object, timestamp?: number) => {
    const payload = JSON.stringify(event)
    return { payload, header: signer.webhooks.generateTestHeaderString({ payload, secret, timestamp }) }
  }
  const intent = (extra: object = {}) => ({
    id: 'pi_1',
    object: 'payment_intent',
    metadata: { tenant_id: 'ten_1', payment_id: 'pay_1' },
    ...extra,
  })

  it('maps a succeeded intent to its tenant and payment, with what it received and the envelope to check', () => {
    const { payload, header } = sign({
      id: 'evt_1',
      type: 'payment_intent.succeeded',
      created: 1_700_000_000,
      livemode: false,
      data: { object: intent({ amount: 4_000, currency: 'usd' }) },
    })
    expect(processor.parseWebhook(payload, header)).toEqual({
      envelope: {
        eventId: 'evt_1',
        type: 'payment_intent.succeeded',
        livemode: false,
        account: null,
        occurredAt: new Date(1_700_000_000_000),
        objectId: 'pi_1',
      },
      event: {
        kind: 'payment.succeeded',
        eventId: 'evt_1',
        intentId: 'pi_1',
        amount: 4_000,
        currency: 'USD',
        tenantId: 'ten_1',
        paymentId: 'pay_1',
      },
    })
    expect(processor.livemode).toBe(false)
    expect(stripeProcessor({ secretKey: 'sk_live_x', webhookSecret: secret }).livemode).toBe(true)
  })

  it('maps cancelled intents, disputes and refunds made in the dashboard', () => {
    const parse = (type: string, object: object) => {
      const { payload, header } = sign({ id: 'evt_d', type, created: 1, data: { object } })
      return processor.parseWebhook(payload, header).event
    }
    expect(parse('payment_intent.canceled', intent())).toEqual({
      kind: 'payment.canceled',
      eventId: 'evt_d',
      intentId: 'pi_1',
      tenantId: 'ten_1',
      paymentId: 'pay_1',
    })
    const dispute = { id: 'dp_1', object: 'dispute', amount: 900, currency: 'usd', payment_intent: 'pi_1' }
    expect(parse('charge.dispute.created', { ...dispute, status: 'needs_response' })).toEqual({
      kind: 'dispute.updated',
      eventId: 'evt_d',
      disputeId: 'dp_1',
      intentId: 'pi_1',
      amount: 900,
      currency: 'USD',
      status: 'OPEN',
      fee: 0,
      fundsWithdrawn: true,
    })
    // Issue 58, item 4: an inquiry withdraws nothing (no reserve) until Stripe takes the funds on its escalation.
    const inquiry = { ...dispute, status: 'warning_needs_response' }
    expect(parse('charge.dispute.created', inquiry)).toMatchObject({ status: 'OPEN', fundsWithdrawn: false })
    expect(parse('charge.dispute.updated', { ...inquiry, status: 'warning_under_review' })).toMatchObject({
      fundsWithdrawn: false,
    })
    const taken = { id: 'txn_0', amount: -900, fee: 0, currency: 'usd' }
    expect(parse('charge.dispute.funds_withdrawn', { ...inquiry, balance_transactions: [taken] })).toMatchObject({
      status: 'OPEN',
      fundsWithdrawn: true,
    })
    expect(parse('charge.dispute.closed', { ...dispute, status: 'lost' })).toMatchObject({ status: 'LOST' })
    expect(parse('charge.dispute.closed', { ...dispute, status: 'won' })).toMatchObject({ status: 'WON' })
    // Issue 46: an inquiry closed and a dispute closed by a refund are closed; a loss whose funds came back is won,
    // and the dispute fee is Stripe's fees on its balance transactions in the dispute's currency.
    expect(parse('charge.dispute.closed', { ...dispute, status: 'warning_closed' })).toMatchObject({ status: 'CLOSED' })
    expect(parse('charge.dispute.closed', { ...dispute, status: 'charge_refunded' })).toMatchObject({
      status: 'CLOSED',
    })
    const withdrawn = { id: 'txn_1', amount: -2_400, fee: 1_500, currency: 'usd' }
    const lost = { ...dispute, status: 'lost', balance_transactions: [withdrawn] }
    expect(parse('charge.dispute.closed', lost)).toMatchObject({ status: 'LOST', fee: 1_500 })
    expect(parse('charge.dispute.funds_reinstated', lost)).toMatchObject({ status: 'WON' })
    const reinstated = { id: 'txn_2', amount: 900, fee: -1_500, currency: 'usd' }
    expect(parse('charge.dispute.updated', { ...lost, balance_transactions: [withdrawn, reinstated] })).toMatchObject({
      status: 'WON',
      fee: 0,
    })
    // Issue 58: an account settling in another currency: the fee converted back at the transaction's rate, the
    // reinstatement read by its sign; without a rate the fee cannot be converted and reads 0.
    const inEuros = { currency: 'eur', exchange_rate: 0.9 }
    const withdrawnEur = { ...withdrawn, amount: -3_510, fee: 1_350, ...inEuros }
    expect(parse('charge.dispute.closed', { ...lost, balance_transactions: [withdrawnEur] })).toMatchObject({
      status: 'LOST',
      fee: 1_500,
    })
    const backEur = { ...reinstated, amount: 810, fee: -1_350, ...inEuros }
    expect(parse('charge.dispute.updated', { ...lost, balance_transactions: [withdrawnEur, backEur] })).toMatchObject({
      status: 'WON',
      fee: 0,
    })
    const noRate = { ...withdrawnEur, exchange_rate: null }
    expect(parse('charge.dispute.closed', { ...lost, balance_transactions: [noRate] })).toMatchObject({ fee: 0 })
    const dashboardRefund = {
      id: 're_9',
      object: 'refund',
      amount: 300,
      currency: 'usd',
      status: 'succeeded',
      payment_intent: 'pi_1',
      metadata: {},
    }
    expect(parse('refund.created', dashboardRefund)).toEqual({
      kind: 'refund.updated',
      eventId: 'evt_d',
      processorRefundId: 're_9',
      intentId: 'pi_1',
      amount: 300,
      currency: 'USD',
      status: 'SUCCEEDED',
      failureMessage: null,
    })
    const charge = { id: 'ch_1', object: 'charge', refunds: { data: [{ ...dashboardRefund, created: 5 }] } }
    expect(parse('charge.refunded', charge)).toMatchObject({ kind: 'refund.updated', processorRefundId: 're_9' })
    expect(parse('charge.refunded', { id: 'ch_1', object: 'charge' }).kind).toBe('ignored')
  })

  it('maps a failed intent with its failure code', () => {
    const failed = intent({
      last_payment_error: { code: 'card_declined', decline_code: 'insufficient_funds', message: 'No' },
    })
    const { payload, header } = sign({ id: 'evt_2', type: 'payment_intent.payment_failed', data: { object: failed } })
    expect(processor.parseWebhook(payload, header).event).toMatchObject({
      kind: 'payment.failed',
      failureCode: 'INSUFFICIENT_FUNDS',
      failureMessage: 'No',
    })
  })

  it('maps refunds by their status, and ignores what is not ours or not acted on', () => {
    const refund = (status: string) => ({
      id: 're_1',
      object: 'refund',
      status,
      metadata: { tenant_id: 'ten_1', payment_id: 'pay_1', refund_id: 'ref_1' },
    })
    const parse = (type: string, object: object) => {
      const { payload, header } = sign({ id: 'evt_r', type, data: { object } })
      const { event } = processor.parseWebhook(payload, header)
      return event.kind === 'refund.updated' ? event.status : event.kind
    }
    expect(parse('refund.updated', refund('succeeded'))).toBe('SUCCEEDED')
    expect(parse('refund.failed', refund('failed'))).toBe('FAILED')
    expect(parse('refund.updated', refund('canceled'))).toBe('FAILED')
    expect(parse('refund.created', refund('pending'))).toBe('PENDING')
    expect(parse('payment_intent.succeeded', intent({ metadata: {} }))).toBe('ignored')
    expect(parse('customer.created', { id: 'cus_1', object: 'customer' })).toBe('ignored')
  })

  it("maps Connect's account and transfer events to the provider and payout they name", () => {
    const parse = (type: string, object: object) => {
      const { payload, header } = sign({ id: 'evt_c', type, data: { object } })
      return processor.parseWebhook(payload, header).event
    }
    const account = {
      id: 'acct_1',
      object: 'account',
      payouts_enabled: true,
      metadata: { tenant_id: 'ten_1', provider_id: 'prv_1' },
    }
    expect(parse('account.updated', account)).toEqual({
      kind: 'account.updated',
      eventId: 'evt_c',
      tenantId: 'ten_1',
      providerId: 'prv_1',
      accountId: 'acct_1',
      payoutsEnabled: true,
    })
    expect(parse('account.updated', { ...account, payouts_enabled: false })).toMatchObject({ payoutsEnabled: false })
    expect(parse('account.updated', { ...account, metadata: {} }).kind).toBe('ignored')
    const transfer = {
      id: 'tr_1',
      object: 'transfer',
      amount: 5_000,
      amount_reversed: 2_000,
      metadata: { tenant_id: 'ten_1', transfer_id: 'pyt_1', attempt: '1' },
    }
    expect(parse('transfer.reversed', transfer)).toEqual({
      kind: 'transfer.reversed',
      eventId: 'evt_c',
      tenantId: 'ten_1',
      transferId: 'pyt_1',
      processorReference: 'tr_1',
      amountReversed: 2_000, // cumulative, as Stripe reports it: a partial reversal leaves the rest paid
      amountRecovered: 0,
      // Sent without its reversals, what they recovered is unknown: read back from Stripe before it is applied.
      reversalsUnlisted: true,
    })
    // Issue 46: the reversals the platform made to recover what the provider owed say so in their metadata.
    const reversals = {
      object: 'list',
      has_more: false,
      data: [
        { id: 'trr_2', amount: 1_500, metadata: { purpose: 'recovery' } },
        { id: 'trr_1', amount: 500, metadata: {} },
      ],
    }
    expect(parse('transfer.reversed', { ...transfer, reversals })).toMatchObject({
      amountReversed: 2_000,
      amountRecovered: 1_500,
    })
    expect(parse('transfer.reversed', { ...transfer, reversals })).not.toHaveProperty('reversalsUnlisted')
    // Issue 58: Stripe embeds the ten most recent reversals; with more, the event says its recoveries are a part only.
    expect(parse('transfer.reversed', { ...transfer, reversals: { ...reversals, has_more: true } })).toMatchObject({
      amountRecovered: 1_500,
      reversalsUnlisted: true,
    })
  })

  it('refuses a forged, a missing or a stale signature', () => {
    const event = { id: 'evt_3', type: 'payment_intent.succeeded', data: { object: intent() } }
    const { payload, header } = sign(event)
    expect(() => processor.parseWebhook(payload.replace('pi_1', 'pi_2'), header)).toThrow(ProcessorSignatureError)
    expect(() => processor.parseWebhook(payload, undefined)).toThrow(ProcessorSignatureError)
    const stale = sign(event, Math.floor(Date.now() / 1000) - 301)
    expect(() => processor.parseWebhook(stale.payload, stale.header)).toThrow(ProcessorSignatureError)
    const forged = new Stripe('sk_test_unit').webhooks.generateTestHeaderString({ payload, secret: 'whsec_other' })
    expect(() => processor.parseWebhook(payload, forged)).toThrow(ProcessorSignatureError)
  })

  it("verifies each endpoint with its own secrets: the platform's (several while rotating) and Connect's", () => {
    const rotating = stripeProcessor({
      secretKey: 'sk_test_unit',
      webhookSecret: ['whsec_new', secret],
      connectWebhookSecret: 'whsec_connect',
    })
    const event = { id: 'evt_4', type: 'account.updated', data: { object: { id: 'acct_1', object: 'account' } } }
    const payload = JSON.stringify(event)
    const signedWith = (s: string) => signer.webhooks.generateTestHeaderString({ payload, secret: s })
    expect(rotating.parseWebhook(payload, signedWith(secret)).envelope.eventId).toBe('evt_4')
    expect(rotating.parseWebhook(payload, signedWith('whsec_new')).envelope.eventId).toBe('evt_4')
    expect(rotating.parseWebhook(payload, signedWith('whsec_connect'), 'connect').envelope.eventId).toBe('evt_4')
    // Each endpoint's secret verifies only that endpoint's deliveries.
    expect(() => rotating.parseWebhook(payload, signedWith('whsec_connect'))).toThrow(ProcessorSignatureError)
    expect(() => rotating.parseWebhook(payload, signedWith(secret), 'connect')).toThrow(ProcessorSignatureError)
    // No Connect secret configured: that endpoint verifies nothing.
    expect(() => processor.parseWebhook(payload, signedWith(secret), 'connect')).toThrow(ProcessorSignatureError)
  })

  it("reads Stripe's processing fee from an intent's charge, converted back when the balance is in another currency (issue 58)", () => {
    const intent = (latestCharge: unknown) =>
      ({ id: 'pi_1', amount: 10_000, currency: 'usd', latest_charge: latestCharge }) as unknown as Stripe.PaymentIntent
    const move = { id: 'txn_1', amount: 10_000, fee: 320, net: 9_680, currency: 'usd', exchange_rate: null }
    expect(chargeCostOf(intent({ id: 'ch_1', balance_transaction: move }))).toEqual({ fee: 320, settled: null })
    // An account settling in euros: 288 EUR cents at 0.9 EUR to the dollar is 320 US cents; the balance moved 9,000
    // EUR cents in, 288 of them its fee (issue 58: the books post it in euros).
    expect(
      chargeCostOf(
        intent({
          id: 'ch_1',
          balance_transaction: { ...move, amount: 9_000, fee: 288, net: 8_712, currency: 'eur', exchange_rate: 0.9 },
        })
      )
    ).toEqual({ fee: 320, settled: { currency: 'EUR', amount: 9_000, fee: 288 } })
    // Not expanded (an event's intent), or no balance transaction yet: unknown, not 0.
    expect(chargeCostOf(intent('ch_1'))).toBeNull()
    expect(chargeCostOf(intent({ id: 'ch_1', balance_transaction: 'txn_1' }))).toBeNull()
    expect(chargeCostOf(intent({ id: 'ch_1', balance_transaction: null }))).toBeNull()
    // No charge: nothing charged.
    expect(chargeCostOf(intent(null))).toEqual({ fee: 0, settled: null })
  })

  it("reads what a dispute's balance transactions moved in another currency, withdrawn and reinstated (issue 58)", () => {
    const dispute = (moves: object[], status = 'needs_response') =>
      disputeOf({
        id: 'dp_1',
        object: 'dispute',
        amount: 10_000,
        currency: 'usd',
        status,
        payment_intent: 'pi_1',
        balance_transactions: moves,
      } as unknown as Stripe.Dispute)
    const withdrawal = { amount: -9_000, fee: 1_350, currency: 'eur', exchange_rate: 0.9 }
    expect(dispute([withdrawal]).settled).toEqual({ currency: 'EUR', amount: -9_000, fee: 1_350 })
    // Given back at another rate: what stays out is the difference, the fee kept.
    const reinstated = { amount: 9_100, fee: 0, currency: 'eur', exchange_rate: 0.91 }
    expect(dispute([withdrawal, reinstated], 'won').settled).toEqual({ currency: 'EUR', amount: 100, fee: 1_350 })
    // In the dispute's own currency, or none yet: nothing converted.
    expect(dispute([{ ...withdrawal, currency: 'usd', exchange_rate: null }]).settled).toBeUndefined()
    expect(dispute([]).settled).toBeUndefined()
  })

  it('reads failure reasons from the decline code first', () => {
    expect(failureCodeOf({ code: 'expired_card' })).toBe('EXPIRED_CARD')
    expect(failureCodeOf({ code: 'card_declined' })).toBe('CARD_DECLINED')
    expect(failureCodeOf({ code: 'card_declined', decline_code: 'insufficient_funds' })).toBe('INSUFFICIENT_FUNDS')
    expect(failureCodeOf({ code: 'payment_intent_authentication_failure' })).toBe('PAYMENT_REJECTED')
    expect(failureCodeOf(null)).toBe('OTHER')
  })
})

describe('configuration', () => {
  const base = { DATABASE_URL: 'postgresql://u:p@127.0.0.1:5432/db' }
  it('has no online processor by default, Stripe when configured with both keys', () => {
    expect(onlineProcessorFrom(loadConfig(base))).toBeUndefined()
    const stripe = {
      ONLINE_PAYMENT_PROCESSOR: 'stripe',
      STRIPE_SECRET_KEY: 'sk_test_1',
      STRIPE_WEBHOOK_SECRET: 'whsec_1',
    }
    expect(onlineProcessorFrom(loadConfig({ ...base, ...stripe }))?.name).toBe('stripe')
    expect(() => loadConfig({ ...base, ONLINE_PAYMENT_PROCESSOR: 'stripe' })).toThrow(/STRIPE_SECRET_KEY/)
  })
})
