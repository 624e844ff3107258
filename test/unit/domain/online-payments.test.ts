/**
 * Online payments' pure rules: what a processor's confirmation does to a payment or refund in any order and however
 * often it is redelivered; how Stripe's signed events map to them (signatures made with Stripe's own library, no
 * network); which processor a configuration selects.
 */
import Stripe from 'stripe'
import { describe, expect, it } from 'vitest'
import { nextPaymentStatus, nextRefundStatus } from '../../../domain/payments/online-payment-transitions.ts'
import { onlineProcessorFrom } from '../../../domain/payments/online-processors.ts'
import { ProcessorSignatureError } from '../../../domain/payments/payment-processor.ts'
import { failureCodeOf, stripeProcessor } from '../../../domain/payments/stripe-processor.ts'
import { loadConfig } from '../../../infra/config.ts'

describe('payment transitions', () => {
  it('settles a pending payment either way, and never moves a succeeded one', () => {
    expect(nextPaymentStatus('PENDING', 'SUCCEEDED')).toBe('SUCCEEDED')
    expect(nextPaymentStatus('PENDING', 'FAILED')).toBe('FAILED')
    expect(nextPaymentStatus('SUCCEEDED', 'SUCCEEDED')).toBeUndefined() // a redelivery
    expect(nextPaymentStatus('SUCCEEDED', 'FAILED')).toBeUndefined() // an earlier attempt's failure, late
  })

  it('lets a failed payment succeed (the payer tried the intent again), but not fail twice', () => {
    expect(nextPaymentStatus('FAILED', 'SUCCEEDED')).toBe('SUCCEEDED')
    expect(nextPaymentStatus('FAILED', 'FAILED')).toBeUndefined()
  })

  it('confirms or undoes a pending refund; a confirmed one can still fail; a failed one is final', () => {
    expect(nextRefundStatus('PENDING', 'SUCCEEDED')).toBe('SUCCEEDED')
    expect(nextRefundStatus('PENDING', 'FAILED')).toBe('FAILED')
    expect(nextRefundStatus('SUCCEEDED', 'FAILED')).toBe('FAILED')
    expect(nextRefundStatus('SUCCEEDED', 'SUCCEEDED')).toBeUndefined()
    expect(nextRefundStatus('FAILED', 'SUCCEEDED')).toBeUndefined()
  })
})

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

  it('maps a succeeded intent to its tenant and payment', () => {
    const { payload, header } = sign({ id: 'evt_1', type: 'payment_intent.succeeded', data: { object: intent() } })
    expect(processor.parseWebhook(payload, header)).toEqual({
      kind: 'payment.succeeded',
      eventId: 'evt_1',
      intentId: 'pi_1',
      tenantId: 'ten_1',
      paymentId: 'pay_1',
    })
  })

  it('maps a failed intent with its failure code', () => {
    const failed = intent({
      last_payment_error: { code: 'card_declined', decline_code: 'insufficient_funds', message: 'No' },
    })
    const { payload, header } = sign({ id: 'evt_2', type: 'payment_intent.payment_failed', data: { object: failed } })
    expect(processor.parseWebhook(payload, header)).toMatchObject({
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
      return processor.parseWebhook(payload, header).kind
    }
    expect(parse('refund.updated', refund('succeeded'))).toBe('refund.succeeded')
    expect(parse('refund.failed', refund('failed'))).toBe('refund.failed')
    expect(parse('refund.updated', refund('canceled'))).toBe('refund.failed')
    expect(parse('refund.created', refund('pending'))).toBe('ignored')
    expect(parse('payment_intent.succeeded', intent({ metadata: {} }))).toBe('ignored')
    expect(parse('customer.created', { id: 'cus_1', object: 'customer' })).toBe('ignored')
  })

  it("maps Connect's account and transfer events to the provider and payout they name", () => {
    const parse = (type: string, object: object) => {
      const { payload, header } = sign({ id: 'evt_c', type, data: { object } })
      return processor.parseWebhook(payload, header)
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
    const transfer = { id: 'tr_1', object: 'transfer', metadata: { tenant_id: 'ten_1', transfer_id: 'pyt_1' } }
    expect(parse('transfer.reversed', transfer)).toEqual({
      kind: 'transfer.reversed',
      eventId: 'evt_c',
      tenantId: 'ten_1',
      transferId: 'pyt_1',
      processorReference: 'tr_1',
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
