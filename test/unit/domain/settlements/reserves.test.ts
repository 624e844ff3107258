/**
 * Reserves (domain/settlements/reserves.ts, issue 58 item 4): what a settlement holds back for an open dispute or a
 * pending refund, on which lines, with which fee; released for exactly what was held; booked to the provider's
 * reserve account in balanced lines; and checked by the ledger check (domain/reconciliation/ledger-reserves.ts).
 */
import { describe, expect, it } from 'vitest'
import { reserveViolations, type ReserveItemFact } from '../../../../domain/reconciliation/ledger-reserves.ts'
import { moneyGivenBack } from '../../../../domain/settlements/chargebacks.ts'
import { journalLines, type SettlementItemKind } from '../../../../domain/settlements/journal.ts'
import {
  heldBy,
  reserveKey,
  reserveMovements,
  type HeldReserve,
  type PendingMoney,
  type ReserveMovement,
} from '../../../../domain/settlements/reserves.ts'
import {
  feeReturned,
  refundMovements,
  type SessionCharge,
  type WeightedLine,
} from '../../../../domain/settlements/settlement-math.ts'
import { settlementTotals } from '../../../../domain/settlements/settlement-totals.ts'

const TEN_PERCENT = { percentBps: 1_000, fixedAmount: 0, fixedCurrency: null }
const LINES: WeightedLine[] = [
  { orderLineId: 'ol_a', position: 0, lineTotal: 6_000 },
  { orderLineId: 'ol_b', position: 1, lineTotal: 4_000 },
]
const charges = (...ids: string[]) =>
  new Map<string, SessionCharge>(
    ids.map((id) => [id, { gross: LINES.find((l) => l.orderLineId === id)!.lineTotal, rule: TEN_PERCENT }])
  )
const BOTH = charges('ol_a', 'ol_b')
const dispute = (amount: number, openedAt = 10, id = 'dsp_1'): PendingMoney => ({
  source: 'DISPUTE',
  id,
  paymentId: 'pay_1',
  amount,
  openedAt,
})
const asHeld = (moves: ReserveMovement[], closedAt: number | null = null): HeldReserve[] =>
  moves.map((m) => ({
    source: m.source,
    sourceId: m.sourceId,
    ...(m.paymentId ? { paymentId: m.paymentId } : {}),
    orderLineId: m.orderLineId,
    amount: m.amount,
    fee: m.fee,
    released: false,
    closedAt,
  }))
const brief = (moves: ReserveMovement[]) =>
  moves.map((m) => [reserveKey(m.kind, m.sourceId, m.orderLineId), m.amount, m.fee])

/** What items move on the provider's payable account (credit positive), through their journal lines. */
const payableMoved = (items: Array<{ kind: SettlementItemKind; amount: number; fee: number }>) =>
  items
    .flatMap((i) => journalLines({ ...i, providerId: 'prv_1' }))
    .filter((l) => l.account === 'provider_payable:prv_1')
    .reduce((sum, l) => sum + l.credit - l.debit, 0)

describe('reserves (issue 58, item 4)', () => {
  it("holds back each line's share of an open dispute, less the fee it would return", () => {
    const moves = reserveMovements(LINES, BOTH, [], [dispute(10_000)], [], 'USD')
    expect(brief(moves)).toEqual([
      ['RESERVE:dsp_1:ol_a', 6_000, 600],
      ['RESERVE:dsp_1:ol_b', 4_000, 400],
    ])
    expect(moves[0]).toMatchObject({ kind: 'RESERVE', source: 'DISPUTE', paymentId: 'pay_1', at: 10 })
    expect(moves.map((m) => heldBy({ kind: m.kind, amount: m.amount, feeAmount: m.fee }))).toEqual([5_400, 3_600])
  })

  it("reserves only the provider's own lines, and a refund naming one line on that line only", () => {
    expect(brief(reserveMovements(LINES, charges('ol_b'), [], [dispute(5_000)], [], 'USD'))).toEqual([
      ['RESERVE:dsp_1:ol_b', 2_000, 200],
    ])
    const refund: PendingMoney = {
      source: 'REFUND',
      id: 'ref_1',
      amount: 1_500,
      openedAt: 10,
      lines: [{ orderLineId: 'ol_a', amount: 1_500 }],
    }
    expect(brief(reserveMovements(LINES, BOTH, [], [refund], [], 'USD'))).toEqual([['RESERVE:ref_1:ol_a', 1_500, 150]])
    expect(reserveMovements(LINES, charges('ol_b'), [], [refund], [], 'USD')).toEqual([])
  })

  it('reserves what is left after what counts, never above the lines, and shares after it', () => {
    // 3,000 refunded already (1,800 and 1,200): a dispute of the 7,000 left takes the rest of each line.
    const counted = moneyGivenBack(LINES, [{ refundId: 'ref_0', amount: 3_000, succeededAt: 5 }], [])
    const moves = reserveMovements(LINES, BOTH, counted, [dispute(9_000)], [], 'USD')
    expect(brief(moves)).toEqual([
      ['RESERVE:dsp_1:ol_a', 4_200, feeReturned(BOTH.get('ol_a')!, 1_800, 6_000, 'USD')],
      ['RESERVE:dsp_1:ol_b', 2_800, feeReturned(BOTH.get('ol_b')!, 1_200, 4_000, 'USD')],
    ])
    // A second pending refund finds nothing left on the lines: nothing held for it.
    const refund: PendingMoney = { source: 'REFUND', id: 'ref_2', amount: 500, openedAt: 20 }
    expect(brief(reserveMovements(LINES, BOTH, counted, [dispute(9_000), refund], [], 'USD'))).toEqual(brief(moves))
  })

  it('is made once while the dispute stays open, and released once, for what it held, when it closed', () => {
    const made = reserveMovements(LINES, BOTH, [], [dispute(10_000)], [], 'USD')
    expect(reserveMovements(LINES, BOTH, [], [dispute(10_000)], asHeld(made), 'USD')).toEqual([])

    // Closed before the next end: given back exactly, whatever the shares would be now.
    const released = reserveMovements(LINES, BOTH, [], [], asHeld(made, 50), 'USD')
    expect(brief(released)).toEqual([
      ['RESERVE_RELEASE:dsp_1:ol_a', 6_000, 600],
      ['RESERVE_RELEASE:dsp_1:ol_b', 4_000, 400],
    ])
    expect(released.every((m) => m.at === 50 && m.paymentId === 'pay_1')).toBe(true)
    const done = asHeld(made, 50).map((h) => ({ ...h, released: true }))
    expect(reserveMovements(LINES, BOTH, [], [], done, 'USD')).toEqual([])
    // Another provider's settlement never releases this provider's reserve.
    expect(reserveMovements(LINES, new Map(), [], [], asHeld(made, 50), 'USD')).toEqual([])
  })

  it('nets a dispute opened, reserved, then lost to exactly one chargeback, and one won to nothing', () => {
    const disputed = dispute(10_000)
    const sessions = LINES.map((l) => ({ kind: 'SESSION' as const, amount: l.lineTotal, fee: l.lineTotal / 10 }))
    const reserves = reserveMovements(LINES, BOTH, [], [disputed], [], 'USD').map((m) => ({ ...m, fee: m.fee }))
    const first = [...sessions, ...reserves]
    expect(payableMoved(first)).toBe(9_000 - 9_000)

    const releases = reserveMovements(LINES, BOTH, [], [], asHeld(reserves, 50), 'USD')
    // Lost: the chargeback is taken by the refund arithmetic as before.
    const lost = moneyGivenBack(LINES, [], [{ disputeId: 'dsp_1', paymentId: 'pay_1', amount: 10_000, lostAt: 50 }])
    const chargebacks = refundMovements(LINES, ['ol_a', 'ol_b'], lost, [], []).map((m) => ({
      kind: 'CHARGEBACK' as const,
      amount: m.amount,
      fee: feeReturned(BOTH.get(m.orderLineId)!, m.before, m.after, 'USD'),
    }))
    const second = [...releases, ...chargebacks]
    expect(payableMoved(second)).toBe(0)
    expect(payableMoved([...first, ...second])).toBe(payableMoved([...sessions, ...chargebacks]))
    // Won: the release gives back what the first settlement held, and the provider keeps the sessions.
    expect(payableMoved([...first, ...releases])).toBe(payableMoved(sessions))
  })

  it('books a reserve from the payable balance to the reserve account, and a release back, balanced', () => {
    for (const kind of ['RESERVE', 'RESERVE_RELEASE'] as const) {
      const lines = journalLines({ kind, providerId: 'prv_1', amount: 6_000, fee: 600 })
      expect(lines.reduce((s, l) => s + l.debit, 0)).toBe(lines.reduce((s, l) => s + l.credit, 0))
      expect(lines).toEqual(
        kind === 'RESERVE'
          ? [
              { account: 'provider_payable:prv_1', debit: 5_400, credit: 0 },
              { account: 'provider_reserve:prv_1', debit: 0, credit: 5_400 },
            ]
          : [
              { account: 'provider_reserve:prv_1', debit: 5_400, credit: 0 },
              { account: 'provider_payable:prv_1', debit: 0, credit: 5_400 },
            ]
      )
    }
  })

  it('takes what is reserved out of the payout, not out of the net earned', () => {
    const items = { sessions: [{ amount: 10_000, fee: 1_000 }], refunds: [], adjustments: [] }
    expect(settlementTotals({ ...items, reserved: 9_000 }, 0)).toMatchObject({
      netAmount: 9_000,
      reserveAmount: 9_000,
      payoutAmount: 0,
      balanceAfter: 0,
    })
    expect(settlementTotals({ ...items, reserved: 4_000 }, 500, 100)).toMatchObject({
      reserveAmount: 4_000,
      payoutAmount: 5_500,
      balanceAfter: 0,
    })
    // Released: paid with what is earned.
    expect(settlementTotals({ sessions: [], refunds: [], adjustments: [], reserved: -9_000 }, 0)).toMatchObject({
      reserveAmount: -9_000,
      payoutAmount: 9_000,
    })
    expect(settlementTotals(items, 0)).toMatchObject({ reserveAmount: 0, payoutAmount: 9_000 })
  })
})

describe('the ledger check of reserves', () => {
  const item = (kind: ReserveItemFact['kind'], over: Partial<ReserveItemFact> = {}): ReserveItemFact => ({
    kind,
    sourceId: 'dsp_1',
    orderLineId: 'ol_a',
    providerId: 'prv_1',
    currency: 'USD',
    amount: 6_000,
    fee: 600,
    ...over,
  })
  const account = (credit: number, debit = 0) => ({ providerId: 'prv_1', currency: 'USD', debit, credit })
  const rules = (facts: Parameters<typeof reserveViolations>[0]) =>
    reserveViolations(facts).map((v) => `${v.rule} ${v.subject}`)

  it('holds when the account holds what is not released', () => {
    expect(rules({ items: [item('RESERVE')], accounts: [account(5_400)] })).toEqual([])
    expect(rules({ items: [item('RESERVE'), item('RESERVE_RELEASE')], accounts: [account(5_400, 5_400)] })).toEqual([])
    expect(rules({ items: [], accounts: [] })).toEqual([])
  })

  it('names a release of more than was held, a release twice or of nothing, and an account out of step', () => {
    expect(
      rules({ items: [item('RESERVE'), item('RESERVE_RELEASE', { amount: 7_000 })], accounts: [account(5_400, 6_300)] })
    ).toEqual(['reserve_release dsp_1:ol_a', 'reserve_balance provider_reserve:prv_1:USD'])
    expect(
      rules({
        items: [item('RESERVE'), item('RESERVE_RELEASE'), item('RESERVE_RELEASE')],
        accounts: [account(5_400, 10_800)],
      })
    ).toEqual(['reserve_release dsp_1:ol_a', 'reserve_balance provider_reserve:prv_1:USD'])
    expect(rules({ items: [item('RESERVE_RELEASE')], accounts: [account(0, 5_400)] })).toEqual([
      'reserve_release dsp_1:ol_a',
      'reserve_balance provider_reserve:prv_1:USD',
    ])
    expect(rules({ items: [item('RESERVE')], accounts: [] })).toEqual(['reserve_balance provider_reserve:prv_1:USD'])
  })
})
