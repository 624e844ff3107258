/**
 * @module The arithmetic of a provider settlement, pure so every cent can be unit-tested (docs/marketplace.md):
 *
 *   session     gross G = the order line's total, fee F = feeOf(G)
 *   refund      an order's refunds that succeeded go back from the lines they name, or (naming none) are shared among
 *               its lines in proportion to what they hold; a line's share r of a refund takes back r from the
 *               provider and returns the fee on it, f = feeOf(G − before) − feeOf(G − after)
 *   reversal    a refund taken back that failed afterwards gives back what it took, and takes back the fee it returned
 *   adjustment  a signed amount the provider is owed (or owes)
 *   net         = ΣG − ΣF − (Σr − Σf) + Σadjustments   (r and f net of reversals)
 *   reserved    = the provider's share held back for refunds pending and disputes open, net of reserves released
 *                 (reserves.ts): it leaves the payable balance for the provider's reserve, and is not part of net
 *   payable     = max(0, carried forward + net − reserved)
 *   payout      = payable rounded down to the payout processor's transferable unit (1 without one; 100 for a HUF
 *                 transfer at Stripe); the remainder and anything owed back (≤ 0) stay on the payable balance and are
 *                 carried into the next settlement
 *
 * The totals and the payout: settlement-totals.ts. All amounts are integers in minor units; the only division is the fee's percentage and the refund shares, both in
 * exact integer (BigInt where products can exceed 2^53) arithmetic with documented rounding.
 */

/** A fee rule as applied: a share in basis points, and a flat amount per session in one currency. */
export interface FeeRule {
  percentBps: number
  fixedAmount: number
  fixedCurrency: string | null
}

export const NO_FEE: FeeRule = { percentBps: 0, fixedAmount: 0, fixedCurrency: null }

/**
 * The platform's fee on `amount` of a session, rounded half up to the minor unit, never more than the amount itself
 * and nothing on nothing (a fully refunded session pays no fee).
 * @param currency - the session's currency: the flat part applies only in the rule's own currency
 */
export function feeOf(amount: number, rule: FeeRule, currency: string): number {
  if (amount <= 0) return 0
  // In BigInt: amounts go up to 2^53 - 1, and amount × basis points passes 2^53 from about 9 × 10^11 on.
  const share = Number((BigInt(amount) * BigInt(rule.percentBps) + 5_000n) / 10_000n)
  const fixed = rule.fixedCurrency === currency ? rule.fixedAmount : 0
  return Math.min(amount, share + fixed)
}

/** A line of an order, for sharing refunds out. */
export interface WeightedLine {
  orderLineId: string
  position: number
  lineTotal: number
}

/**
 * Shares `amount` among lines in proportion to their totals (largest remainder; ties to the earlier line), so the
 * shares add up to `amount` exactly and no line gets more than its total while `amount` ≤ Σ totals.
 * @returns each line's share, by order line id
 */
export function shareAmong(amount: number, lines: readonly WeightedLine[]): Map<string, number> {
  const total = BigInt(lines.reduce((sum, l) => sum + l.lineTotal, 0))
  const shares = new Map<string, number>()
  if (total === 0n) {
    for (const l of lines) shares.set(l.orderLineId, 0)
    return shares
  }
  const x = BigInt(amount)
  let given = 0n
  const remainders = lines.map((l) => {
    const exact = x * BigInt(l.lineTotal)
    const base = exact / total
    given += base
    shares.set(l.orderLineId, Number(base))
    return { line: l, remainder: exact % total }
  })
  remainders.sort((a, b) =>
    a.remainder === b.remainder ? a.line.position - b.line.position : a.remainder > b.remainder ? -1 : 1
  )
  for (let k = 0n; k < x - given; k++) {
    const id = remainders[Number(k)]!.line.orderLineId
    shares.set(id, shares.get(id)! + 1)
  }
  return shares
}

/** One refund of an order that counts: it succeeded (and had not failed) before the settlement's end. */
export interface OrderRefund {
  refundId: string
  amount: number
  /** When it succeeded (epoch ms): the instant it is taken from the provider. */
  succeededAt: number
  /**
   * The lines it gives back, when its request named them (issue 58): each line gives back exactly its amount. None
   * (or empty): the refund is shared among the lines by weight.
   */
  lines?: ReadonlyArray<{ orderLineId: string; amount: number }>
}

/** One refund's share of one line. */
export interface RefundShare {
  refundId: string
  orderLineId: string
  /** What this refund takes back from the line (rarely −1 when rounding moves a unit between lines). */
  amount: number
  /** Everything refunded from the line before and after this refund. */
  before: number
  after: number
  succeededAt: number
}

/**
 * Each refund's share of each line, in the order the refunds went back:
 *
 * - A refund that names its lines takes exactly its amount from each line it names and nothing from the others
 *   (capped at what the line still holds, which the refund's own checks make the whole amount); what a named line
 *   no longer held when the refund went back (a dispute lost meanwhile) is shared by weight among the other lines.
 * - A refund without lines is shared by weight among what the lines still hold. Shares of such refunds are
 *   cumulative: after the k-th refund since the last refund with lines (or the first refund), the lines have given
 *   back their share, by what each held then, of all those refunds so far; so a line never gives back more than it
 *   holds, however many partial refunds. An order without refunds with lines is shared exactly as before lines
 *   existed (cumulatively by the lines' totals).
 *
 * @param refunds - the order's refunds in the order they succeeded (succeededAt, then id)
 */
export function refundShares(lines: readonly WeightedLine[], refunds: readonly OrderRefund[]): RefundShare[] {
  const out: RefundShare[] = []
  const refunded = new Map(lines.map((l) => [l.orderLineId, 0]))
  const push = (refund: OrderRefund, orderLineId: string, amount: number) => {
    const before = refunded.get(orderLineId)!
    refunded.set(orderLineId, before + amount)
    out.push({
      refundId: refund.refundId,
      orderLineId,
      amount,
      before,
      after: before + amount,
      succeededAt: refund.succeededAt,
    })
  }
  // The weights of refunds without lines: what each line held when the current run of them began.
  let held: WeightedLine[] = [...lines]
  let cumulative = 0
  let previous = shareAmong(0, held)
  for (const refund of refunds) {
    if (refund.lines && refund.lines.length > 0) {
      let beyond = 0
      for (const named of refund.lines) {
        const line = lines.find((l) => l.orderLineId === named.orderLineId)
        if (!line) continue // not a line of the order: the refund's checks refuse it
        const take = Math.min(named.amount, line.lineTotal - refunded.get(line.orderLineId)!)
        if (take > 0) push(refund, line.orderLineId, take)
        beyond += named.amount - Math.max(take, 0)
      }
      held = lines.map((l) => ({ ...l, lineTotal: l.lineTotal - refunded.get(l.orderLineId)! }))
      // More than a named line still held: a dispute was lost between the refund's check and its success (issue 78).
      // The payer got it all back, so the rest is shared by weight among what the other lines hold, never lost.
      const rest = Math.min(
        beyond,
        held.reduce((total, l) => total + l.lineTotal, 0)
      )
      if (rest > 0) {
        for (const [orderLineId, amount] of shareAmong(rest, held)) if (amount > 0) push(refund, orderLineId, amount)
        held = lines.map((l) => ({ ...l, lineTotal: l.lineTotal - refunded.get(l.orderLineId)! }))
      }
      cumulative = 0
      previous = shareAmong(0, held)
      continue
    }
    // Never more than the lines hold (moneyGivenBack caps an order's refunds at its lines' total).
    cumulative = Math.min(
      cumulative + refund.amount,
      held.reduce((sum, l) => sum + l.lineTotal, 0)
    )
    const next = shareAmong(cumulative, held)
    for (const line of lines) {
      const delta = next.get(line.orderLineId)! - previous.get(line.orderLineId)!
      if (delta !== 0) push(refund, line.orderLineId, delta)
    }
    previous = next
  }
  return out
}

/** Everything `shares` took from each line, by order line id. */
export function refundedByLine(shares: readonly RefundShare[]): Map<string, number> {
  const total = new Map<string, number>()
  for (const s of shares) total.set(s.orderLineId, (total.get(s.orderLineId) ?? 0) + s.amount)
  return total
}

/** A refund item a settlement already made on a line: what it took (REFUND) or gave back (REFUND_REVERSAL). */
export interface SettledRefundItem {
  kind: 'REFUND' | 'REFUND_REVERSAL'
  refundId: string
  orderLineId: string
  amount: number
}

/** A refund that failed before the settlement's end (it may have been taken before it failed). */
export interface FailedRefund {
  refundId: string
  /** When it failed (epoch ms). */
  failedAt: number
}

/** What a settlement moves on one line for one refund. */
export interface RefundMovement {
  kind: 'REFUND' | 'REFUND_REVERSAL'
  refundId: string
  orderLineId: string
  /** Taken from the line (REFUND; rarely −1) or given back to it (REFUND_REVERSAL). */
  amount: number
  /** Everything refunded from the line, net, before and after this movement. */
  before: number
  after: number
  /** When it happened: the refund succeeded (REFUND) or failed (REFUND_REVERSAL). */
  at: number
}

/**
 * What a settlement takes from, and gives back to, each of `lines` for an order's refunds, given what earlier
 * settlements took. Each line ends exactly where it would be had only the refunds that count ever happened: its share
 * of their total (cumulative shares, as {@link refundShares}), so it never gives back more than it was charged.
 *
 * - A refund taken before that failed is given back: a REFUND_REVERSAL of what its REFUND took.
 * - A refund that counts and was never taken from a line is taken: its share of the line.
 * - The last movement of a line absorbs the unit or two that rounding moved between lines in a history with a failed
 *   refund in it, so the line's net refunded is its share of the total that counts.
 *
 * @param lines - the lines to settle (those of one provider that are charged), with every line of the order in
 *   `allLines` for the shares
 * @param refunds - the refunds that count at the end, in the order they succeeded
 * @param failed - refunds that failed before the end
 * @param settled - the REFUND and REFUND_REVERSAL items settled before on the order's lines
 * @returns the movements, line by line: reversals first (as they failed), then refunds (as they succeeded)
 */
export function refundMovements(
  allLines: readonly WeightedLine[],
  lines: readonly string[],
  refunds: readonly OrderRefund[],
  failed: readonly FailedRefund[],
  settled: readonly SettledRefundItem[]
): RefundMovement[] {
  const key = (kind: string, refundId: string, lineId: string) => `${kind}:${refundId}:${lineId}`
  const items = new Map(settled.map((i) => [key(i.kind, i.refundId, i.orderLineId), i.amount]))
  const shares = refundShares(allLines, refunds)
  // Each line's share of all the refunds that count (without lines, by weight, that is shareAmong(Σ refunds)).
  const target = refundedByLine(shares)
  const out: RefundMovement[] = []
  for (const lineId of lines) {
    const taken = settled
      .filter((i) => i.orderLineId === lineId)
      .reduce((sum, i) => sum + (i.kind === 'REFUND' ? i.amount : -i.amount), 0)
    const reversals = failed.flatMap((f) => {
      const took = items.get(key('REFUND', f.refundId, lineId))
      if (took === undefined || items.has(key('REFUND_REVERSAL', f.refundId, lineId))) return []
      return [{ kind: 'REFUND_REVERSAL' as const, refundId: f.refundId, amount: took, at: f.failedAt }]
    })
    const newShares = refunds
      .filter((r) => !items.has(key('REFUND', r.refundId, lineId)))
      .map((r) => ({
        kind: 'REFUND' as const,
        refundId: r.refundId,
        amount: shares
          .filter((s) => s.refundId === r.refundId && s.orderLineId === lineId)
          .reduce((sum, s) => sum + s.amount, 0),
        at: r.succeededAt,
      }))
    const moves = [...reversals, ...newShares]
    if (moves.length === 0) continue
    const after = taken - sum(reversals) + sum(newShares)
    const correction = (target.get(lineId) ?? 0) - after
    const last = newShares.length > 0 ? newShares[newShares.length - 1]! : reversals[reversals.length - 1]!
    last.amount += last.kind === 'REFUND' ? correction : -correction
    let before = taken
    for (const move of moves) {
      if (move.kind === 'REFUND' && move.amount === 0) continue // nothing to take: not taken (yet)
      const next = move.kind === 'REFUND' ? before + move.amount : before - move.amount
      out.push({ ...move, orderLineId: lineId, before, after: next })
      before = next
    }
  }
  return out
}

const sum = (moves: ReadonlyArray<{ amount: number }>) => moves.reduce((s, m) => s + m.amount, 0)

/** A settled or settling session line: its gross and the fee rule it was charged under. */
export interface SessionCharge {
  gross: number
  rule: FeeRule
}

/** The fee returned when a line's refunded total goes from `before` to `after`. */
export const feeReturned = (charge: SessionCharge, before: number, after: number, currency: string): number =>
  feeOf(charge.gross - before, charge.rule, currency) - feeOf(charge.gross - after, charge.rule, currency)
