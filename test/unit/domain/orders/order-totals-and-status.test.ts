import { describe, expect, it } from 'vitest'
import {
  assertAcceptsPayment,
  assertTransition,
  canTransition,
  ORDER_STATUSES,
  REFUND_UNDO_TRANSITIONS,
  statusFromMoney,
} from '../../../../domain/orders/order-status.ts'
import { computeTotals } from '../../../../domain/orders/order-totals.ts'
import { MAX_AMOUNT } from '../../../../domain/pricing/money.ts'

const line = (quantity: number, unitAmount: number, discountAmount = 0, taxAmount = 0) => ({
  quantity,
  unitAmount,
  discountAmount,
  taxAmount,
})

describe('computeTotals', () => {
  it('computes line totals and order totals: gross − discount + tax', () => {
    const result = computeTotals([line(1, 12_000), line(4, 2_500, 1_000), line(3, 799, 0, 192)])
    expect(result).toEqual({
      totals: { subtotal: 12_000 + 10_000 + 2_397, discountTotal: 1_000, taxTotal: 192, total: 12_000 + 9_000 + 2_589 },
      lineTotals: [12_000, 9_000, 2_589],
    })
  })

  it('keeps total = subtotal − discountTotal + taxTotal = Σ line totals for many lines', () => {
    const lines = Array.from({ length: 100 }, (_, i) => line((i % 5) + 1, (i * 37) % 1_000, i % 3, i % 7))
    const result = computeTotals(lines)
    if ('errors' in result) throw new Error('unexpected errors')
    const { subtotal, discountTotal, taxTotal, total } = result.totals
    expect(total).toBe(subtotal - discountTotal + taxTotal)
    expect(total).toBe(result.lineTotals.reduce((a, b) => a + b, 0))
  })

  it('refuses a discount larger than its line, naming the line', () => {
    expect(computeTotals([line(1, 100), line(2, 50, 101)])).toEqual({
      errors: [{ path: 'lines.1.discountAmount', code: 'discount_exceeds_amount', message: expect.any(String) }],
    })
    expect('totals' in computeTotals([line(2, 50, 100)])).toBe(true)
  })

  it('refuses totals beyond what is stored', () => {
    expect(computeTotals([line(2, MAX_AMOUNT)])).toMatchObject({
      errors: [{ path: 'lines.0', code: 'amount_too_large' }],
    })
    expect(computeTotals([line(1, MAX_AMOUNT), line(1, 1)])).toMatchObject({
      errors: [{ path: 'lines', code: 'amount_too_large' }],
    })
  })
})

describe('order status', () => {
  it('follows the money once finalized', () => {
    expect(statusFromMoney({ total: 10_000, amountPaid: 0, amountRefunded: 0 })).toBe('OPEN')
    expect(statusFromMoney({ total: 10_000, amountPaid: 1, amountRefunded: 0 })).toBe('PARTIALLY_PAID')
    expect(statusFromMoney({ total: 10_000, amountPaid: 10_000, amountRefunded: 0 })).toBe('PAID')
    expect(statusFromMoney({ total: 10_000, amountPaid: 10_000, amountRefunded: 1 })).toBe('PARTIALLY_REFUNDED')
    expect(statusFromMoney({ total: 10_000, amountPaid: 4_000, amountRefunded: 4_000 })).toBe('REFUNDED')
    expect(statusFromMoney({ total: 0, amountPaid: 0, amountRefunded: 0 })).toBe('PAID')
  })

  it('allows only the documented transitions; VOID and REFUNDED are terminal', () => {
    expect(canTransition('DRAFT', 'OPEN')).toBe(true)
    expect(canTransition('OPEN', 'VOID')).toBe(true)
    expect(canTransition('PAID', 'VOID')).toBe(false)
    expect(canTransition('PARTIALLY_PAID', 'VOID')).toBe(false)
    expect(canTransition('PAID', 'OPEN')).toBe(false)
    expect(canTransition('PARTIALLY_REFUNDED', 'PARTIALLY_REFUNDED')).toBe(true)
    for (const to of ORDER_STATUSES) {
      if (to !== 'VOID') expect(canTransition('VOID', to)).toBe(false)
      if (to !== 'REFUNDED') expect(canTransition('REFUNDED', to)).toBe(false)
    }
    expect(REFUND_UNDO_TRANSITIONS.REFUNDED).toEqual(['PARTIALLY_REFUNDED', 'PAID', 'PARTIALLY_PAID'])
    expect(REFUND_UNDO_TRANSITIONS.VOID).toBeUndefined()
    expect(() => assertTransition('PAID', 'VOID', 'void')).toThrow(
      expect.objectContaining({ status: 409, code: 'invalid_state_transition' })
    )
  })

  it('takes payments only while open, partially paid or partially refunded', () => {
    for (const status of ['OPEN', 'PARTIALLY_PAID', 'PARTIALLY_REFUNDED'] as const)
      expect(() => assertAcceptsPayment(status)).not.toThrow()
    for (const status of ['DRAFT', 'PAID', 'REFUNDED', 'VOID'] as const) {
      expect(() => assertAcceptsPayment(status)).toThrow(expect.objectContaining({ code: 'invalid_state_transition' }))
    }
  })
})
