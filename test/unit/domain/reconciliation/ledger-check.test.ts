/**
 * The ledger check's rules (domain/reconciliation/ledger-check.ts), over plain facts: books that hold give no
 * violation, and each way of losing or counting a cent twice is named.
 */
import { describe, expect, it } from 'vitest'
import { ledgerViolations } from '../../../../domain/reconciliation/ledger-check.ts'
import type { LedgerFacts } from '../../../../domain/reconciliation/ledger-facts.ts'
import { emptySnapshot, type ProcessorSnapshot } from '../../../../domain/reconciliation/processor-snapshot.ts'

const created = new Date('2026-11-21T10:00:00Z')

/** An order paid 5000 online, 1000 refunded; an unapplied 2000 refunded automatically; a paid, partly reversed payout. */
const facts = (): LedgerFacts => ({
  orders: [{ id: 'ord_1', amountPaid: 5000, amountRefunded: 1000, amountChargedBack: 0 }],
  disputes: [],
  payments: [
    {
      id: 'pay_1',
      orderId: 'ord_1',
      amount: 5000,
      currency: 'USD',
      status: 'SUCCEEDED',
      method: 'CARD_ONLINE',
      unapplied: false,
      amountRefunded: 1000,
      processorReference: 'pi_1',
    },
    {
      id: 'pay_2',
      orderId: 'ord_1',
      amount: 2000,
      currency: 'USD',
      status: 'SUCCEEDED',
      method: 'CARD_ONLINE',
      unapplied: true,
      amountRefunded: 0,
      processorReference: 'pi_2',
    },
    {
      id: 'pay_3',
      orderId: 'ord_1',
      amount: 700,
      currency: 'USD',
      status: 'FAILED',
      method: 'CASH',
      unapplied: false,
      amountRefunded: 0,
      processorReference: null,
    },
  ],
  refunds: [
    { id: 'ref_1', paymentId: 'pay_1', amount: 1000, currency: 'USD', status: 'SUCCEEDED', processorReference: 're_1' },
    { id: 'ref_2', paymentId: 'pay_1', amount: 500, currency: 'USD', status: 'FAILED', processorReference: null },
    { id: 'ref_3', paymentId: 'pay_2', amount: 2000, currency: 'USD', status: 'PENDING', processorReference: null },
  ],
  entries: [{ id: 'jen_1', currency: 'USD', debit: 3000, credit: 3000 }],
  // 5000 + 2000 collected, 1000 refunded, 3000 paid out and 1000 of it reversed.
  clearing: [{ currency: 'USD', balance: 4000 }],
  reserves: { items: [], accounts: [] },
  transfers: [
    {
      id: 'pyx_1',
      transferId: 'pyt_1',
      amount: 3000,
      amountReversed: 1000,
      currency: 'USD',
      status: 'PAID',
      processorReference: 'tr_1',
      createdAt: created,
    },
  ],
})

const processor = (): ProcessorSnapshot => ({
  ...emptySnapshot(),
  intents: [
    {
      id: 'pi_1',
      amount: 5000,
      currency: 'USD',
      status: 'succeeded',
      lastPaymentError: false,
      paymentId: 'pay_1',
      created,
    },
    {
      id: 'pi_2',
      amount: 2000,
      currency: 'USD',
      status: 'succeeded',
      lastPaymentError: false,
      paymentId: 'pay_2',
      created,
    },
    // Another intent of the tenant that never succeeded: nothing to record.
    { id: 'pi_3', amount: 100, currency: 'USD', status: 'canceled', lastPaymentError: false, paymentId: null, created },
  ],
  refunds: [
    {
      id: 're_1',
      amount: 1000,
      currency: 'USD',
      status: 'succeeded',
      paymentIntentId: 'pi_1',
      paymentId: 'pay_1',
      refundId: 'ref_1',
      created,
    },
  ],
  transfers: [{ id: 'tr_1', amount: 3000, amountReversed: 1000, currency: 'USD', transferId: 'pyt_1', created }],
})

const rules = (f: LedgerFacts, p?: ProcessorSnapshot) => ledgerViolations(f, p).map((v) => `${v.rule} ${v.subject}`)

describe('ledgerViolations', () => {
  it('finds none in books that hold, with and without the processor', () => {
    expect(ledgerViolations(facts())).toEqual([])
    expect(ledgerViolations(facts(), processor())).toEqual([])
  })

  it('names an order whose amounts disagree with its payments and refunds (an unapplied payment counts in neither)', () => {
    const f = facts()
    f.orders[0]!.amountRefunded = 0
    const [violation] = ledgerViolations(f)
    expect(violation).toEqual({
      rule: 'order_amounts',
      subject: 'ord_1',
      detail:
        'Σ succeeded applied payments − Σ their succeeded refunds = 4000, but amountPaid − amountRefunded = 5000 − 0 = 5000.',
    })
  })

  it("names a payment whose refunded amount is not its succeeded refunds', and an unapplied one left unrefunded", () => {
    const f = facts()
    f.payments[0]!.amountRefunded = 1500
    f.refunds[2]!.status = 'FAILED'
    expect(rules(f)).toEqual(['payment_refunded pay_1', 'unapplied_not_refunded pay_2'])
  })

  it('names an unbalanced entry and the unbalanced currency', () => {
    const f = facts()
    f.entries.push({ id: 'jen_2', currency: 'USD', debit: 100, credit: 90 })
    expect(rules(f)).toEqual(['ledger_entry_unbalanced jen_2', 'ledger_unbalanced USD'])
  })

  it('names payments and intents that disagree with the processor, both ways', () => {
    const p = processor()
    p.intents[0]!.status = 'processing'
    p.intents[2]!.status = 'succeeded'
    // Money the books and the processor disagree on shows on the balance too (rule 9).
    expect(rules(facts(), p)).toEqual([
      'payment_not_at_processor pay_1',
      'intent_not_recorded pi_3',
      'clearing_balance USD',
    ])
    expect(rules(facts(), { ...p, intents: p.intents.slice(1, 2) })).toEqual([
      'payment_not_at_processor pay_1',
      'clearing_balance USD',
    ])
    const amounts = processor()
    amounts.intents[1]!.amount = 1999
    expect(rules(facts(), amounts)).toEqual(['payment_not_at_processor pay_2', 'clearing_balance USD'])
  })

  it('names refunds and disputes that disagree with the processor, both ways, and dispute amounts that do not add up (issue 46)', () => {
    const failedThere = processor()
    failedThere.refunds[0]!.status = 'failed'
    expect(rules(facts(), failedThere)).toEqual(['refund_not_at_processor ref_1', 'clearing_balance USD'])
    const dashboard = processor()
    dashboard.refunds.push({ ...dashboard.refunds[0]!, id: 're_9', refundId: null, amount: 300 })
    expect(rules(facts(), dashboard)).toEqual(['processor_refund_not_recorded re_9', 'clearing_balance USD'])
    const disputed = facts()
    const lost = { id: 'dsp_1', paymentId: 'pay_1', processorReference: 'dp_1', status: 'LOST', amount: 5000 }
    disputed.disputes.push({ ...lost, amountLost: 5000 })
    // The order shows what the lost dispute charged back (issue 46, item 1).
    expect(rules(disputed)).toEqual(['order_charged_back ord_1'])
    disputed.orders[0]!.amountChargedBack = 5000
    expect(rules(disputed)).toEqual([])
    const won = processor()
    won.disputes.push({
      id: 'dp_1',
      amount: 5000,
      currency: 'USD',
      status: 'won',
      paymentIntentId: 'pi_1',
      paymentId: 'pay_1',
      created,
    })
    expect(rules(disputed, won)).toEqual(['dispute_not_at_processor pay_1'])
    expect(rules(disputed, processor())).toEqual(['dispute_not_at_processor pay_1'])
    disputed.disputes[0]!.amountLost = 0
    expect(rules(disputed)).toEqual(['order_charged_back ord_1', 'dispute_amounts pay_1'])
    const closed = processor()
    closed.disputes.push({ ...won.disputes[0]!, status: 'warning_closed' })
    Object.assign(disputed.disputes[0]!, { status: 'CLOSED' })
    disputed.orders[0]!.amountChargedBack = 0
    expect(rules(disputed, closed)).toEqual([])
  })

  // Issue 58, item 3: a payment's disputes are each checked, and the order's chargebacks are their sum.
  it('checks each dispute of a payment on its own, and charges back the lost ones of all of them', () => {
    const twice = facts()
    const inquiry = { id: 'dsp_1', paymentId: 'pay_1', processorReference: 'dp_1', status: 'CLOSED', amount: 5000 }
    twice.disputes.push({ ...inquiry, amountLost: 0 })
    twice.disputes.push({
      ...inquiry,
      id: 'dsp_2',
      processorReference: 'dp_2',
      status: 'LOST',
      amount: 3000,
      amountLost: 3000,
    })
    expect(rules(twice)).toEqual(['order_charged_back ord_1'])
    twice.orders[0]!.amountChargedBack = 3000
    expect(rules(twice)).toEqual([])
    const atProcessor = processor()
    const theirs = { amount: 5000, currency: 'USD', paymentIntentId: 'pi_1', paymentId: 'pay_1', created }
    atProcessor.disputes.push({ ...theirs, id: 'dp_1', status: 'warning_closed' })
    expect(rules(twice, atProcessor)).toEqual(['dispute_not_at_processor pay_1'])
    atProcessor.disputes.push({ ...theirs, id: 'dp_2', amount: 3000, status: 'lost' })
    // The lost one's 3000 left the processor's balance, and the books' clearing with it.
    expect(rules(twice, atProcessor)).toEqual(['clearing_balance USD'])
    twice.clearing = [{ currency: 'USD', balance: 1000 }]
    expect(rules(twice, atProcessor)).toEqual([])
    twice.disputes[1]!.amount = 6000
    expect(rules(twice)).toEqual(['dispute_amounts pay_1'])
  })

  it('names a paid transfer the processor does not hold, or holds for another net amount', () => {
    expect(rules(facts(), { ...processor(), transfers: [] })).toEqual([
      'transfer_not_at_processor pyt_1',
      'clearing_balance USD',
    ])
    const reversed = processor()
    reversed.transfers[0]!.amountReversed = 3000
    expect(ledgerViolations(facts(), reversed)).toEqual([
      {
        rule: 'transfer_not_at_processor',
        subject: 'pyt_1',
        detail: 'PAID here (send pyx_1), it nets 2000 USD; transfer tr_1 nets 0 USD.',
      },
      {
        rule: 'clearing_balance',
        subject: 'USD',
        detail: "clearing holds 4000 USD; the tenant's objects at the processor moved 6000 on its balance.",
      },
    ])
  })

  it("holds clearing to the processor's balance in every currency: collections, refunds, disputes, fees, transfers (issue 58)", () => {
    const atProcessor = processor()
    // The payer's bank withdrew 1000 and Stripe charged a 1500 dispute fee; the books have not moved.
    const theirs = { currency: 'usd', paymentIntentId: 'pi_1', paymentId: 'pay_1', created }
    atProcessor.disputes.push({ ...theirs, id: 'dp_1', amount: 1000, status: 'needs_response', fee: 1500 })
    const f = facts()
    f.disputes.push({
      id: 'pdp_1',
      paymentId: 'pay_1',
      processorReference: 'dp_1',
      status: 'OPEN',
      amount: 1000,
      amountLost: 0,
    })
    expect(ledgerViolations(f, atProcessor)).toEqual([
      {
        rule: 'clearing_balance',
        subject: 'USD',
        detail: "clearing holds 4000 USD; the tenant's objects at the processor moved 1500 on its balance.",
      },
    ])
    f.clearing = [{ currency: 'USD', balance: 1500 }]
    expect(rules(f, atProcessor)).toEqual([])
    // Won: the funds come back, the fee stays; an inquiry (warning_*) withdraws nothing.
    atProcessor.disputes[0]!.status = 'won'
    f.disputes[0]!.status = 'WON'
    expect(rules(f, atProcessor)).toEqual(['clearing_balance USD'])
    f.clearing = [{ currency: 'USD', balance: 2500 }]
    expect(rules(f, atProcessor)).toEqual([])
    // A currency only one side has is named too.
    f.clearing.push({ currency: 'EUR', balance: 700 })
    expect(rules(f, atProcessor)).toEqual(['clearing_balance EUR'])
  })
})
