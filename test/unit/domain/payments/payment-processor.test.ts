import { describe, expect, it } from 'vitest'
import {
  processorFor,
  RECORDED_METHODS,
  recordedPaymentProcessor,
  type PaymentProcessor,
} from '../../../../domain/payments/payment-processor.ts'

const request = { paymentId: 'pay_1', orderId: 'ord_1', amount: 4_000, currency: 'USD', method: 'CASH' as const }

describe('the recorded processor', () => {
  it('records a payment the centre took as succeeded, moving no money itself', async () => {
    expect(await recordedPaymentProcessor.collect(request)).toEqual({ status: 'SUCCEEDED', processorReference: null })
  })

  it('records the failure the centre reports, with its code', async () => {
    const outcome = await recordedPaymentProcessor.collect({
      ...request,
      method: 'CARD_TERMINAL',
      reportedFailure: { code: 'CARD_DECLINED', message: 'do not honour' },
    })
    expect(outcome).toEqual({
      status: 'FAILED',
      processorReference: null,
      failureCode: 'CARD_DECLINED',
      failureMessage: 'do not honour',
    })
  })

  it('takes exactly the methods a centre records', () => {
    for (const method of RECORDED_METHODS) expect(recordedPaymentProcessor.handles(method)).toBe(true)
    expect(RECORDED_METHODS).toEqual(['CASH', 'CARD_TERMINAL', 'BANK_TRANSFER', 'INSURER_REMITTANCE', 'CHEQUE'])
  })
})

describe('processorFor', () => {
  it('picks the first configured processor that handles the method, or none', () => {
    const cashOnly: PaymentProcessor = { ...recordedPaymentProcessor, name: 'cash-only', handles: (m) => m === 'CASH' }
    expect(processorFor('CASH', [cashOnly, recordedPaymentProcessor])?.name).toBe('cash-only')
    expect(processorFor('CHEQUE', [cashOnly, recordedPaymentProcessor])?.name).toBe('recorded')
    expect(processorFor('CHEQUE', [cashOnly])).toBeUndefined()
  })

  it('takes CARD_ONLINE only through the online processor: never the recorded one', () => {
    expect(processorFor('CARD_ONLINE', [recordedPaymentProcessor])).toBeUndefined()
  })
})
