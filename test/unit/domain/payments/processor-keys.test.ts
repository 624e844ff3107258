import { describe, expect, it } from 'vitest'
import { processorKey } from '../../../../domain/payments/processor-keys.ts'

describe('processorKey', () => {
  it("scopes a request's key to its tenant and caller, and a record without one to its own id", () => {
    expect(processorKey('payment', 'ten_1', { caller: 'cli_a', key: 'k-1' }, 'pay_1')).toBe('payment:ten_1:cli_a:k-1')
    expect(processorKey('payment', 'ten_1', { caller: 'cli_b', key: 'k-1' }, 'pay_2')).toBe('payment:ten_1:cli_b:k-1')
    expect(processorKey('refund', 'ten_1', undefined, 're_1')).toBe('refund:ten_1:re_1')
    expect(processorKey('refund', 'ten_1', { caller: 'auto', key: 'pay_1' }, 're_1')).toBe('refund:ten_1:auto:pay_1')
  })

  it('sends a key that would pass the 255 characters Stripe takes as its SHA-256, the same every time', () => {
    const key = 'x'.repeat(255)
    const sent = processorKey('payment', 'ten_019a0000000000000000000000000000', { caller: 'cli_1', key }, 'pay_1')
    expect(sent.length).toBeLessThanOrEqual(255)
    expect(sent).toMatch(/^payment:ten_019a0+:cli_1:sha256-[0-9a-f]{64}$/)
    expect(processorKey('payment', 'ten_019a0000000000000000000000000000', { caller: 'cli_1', key }, 'pay_2')).toBe(
      sent
    )
    expect(processorKey('payment', 'ten_019a0000000000000000000000000000', { caller: 'cli_2', key }, 'pay_1')).not.toBe(
      sent
    )
  })
})
