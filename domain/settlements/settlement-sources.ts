/**
 * @module What a provider settlement reads: the session lines that became payable, the refunds of their orders, the
 * provider's adjustments, fee rule and balance. Plain SQL (instants as epoch milliseconds), every statement filtered by
 * tenant on top of row-level security.
 *
 * A session line is payable once its appointment is COMPLETED and its order fully collected (finalized, not void,
 * amount paid ≥ total). It is *earned* at the later of the completion and the instant the order became fully
 * collected: the success of its last applied payment (issue 58: not its creation, or a card payment started before a
 * period's end and paid after it was back-dated into it); a settlement pays what was earned before its period's end
 * and not paid before. Those instants are written when they happen (never back-dated), so once a period has ended
 * what it contains can no longer change.
 *
 * A refund of an applied payment counts from the instant it succeeded (`succeeded_at`) until the instant it failed,
 * if it ever does (`failed_at`): a PENDING refund only holds its amount (and the provider's share of it is reserved,
 * reserve-sources.ts), and one that never succeeded never counts.
 * A settlement takes what counts at its end; one that failed after a settlement took it is given back by the first
 * settlement whose end is after the failure. Each lost dispute of an applied payment counts the same way, from the
 * instant it was lost (`payment_disputes.lost_at`) until its funds were reinstated, if ever (`reinstated_at`): a
 * payment disputed twice counts each dispute on its own (issue 58).
 */
import { Prisma } from '../../generated/prisma/client.ts'
import type { UnitOfWork } from '../../infra/unit-of-work.ts'
import type { OrderChargeback, ReinstatedChargeback, SettledChargebackItem } from './chargebacks.ts'
import { reserveWork } from './reserve-sources.ts'
import {
  type FailedRefund,
  type FeeRule,
  type OrderRefund,
  type SettledRefundItem,
  type WeightedLine,
} from './settlement-math.ts'

/** A timestamp column as epoch milliseconds. */
export const ms = (column: Prisma.Sql) => Prisma.sql`(extract(epoch FROM ${column}) * 1000)::float8`
/**
 * A money column (BIGINT) as a number: a raw query reads BIGINT as a JavaScript bigint, and amounts are at most
 * 2^53 - 1 (domain/pricing/money.ts), which float8 holds exactly.
 */
export const money = (column: Prisma.Sql) => Prisma.sql`${column}::float8`

export interface SettlementScope {
  providerId: string
  currency: string
  /** Exclusive end of the period. */
  end: Date
}

/** A session line that became payable and was never settled. */
export interface PayableLine {
  orderLineId: string
  orderId: string
  appointmentId: string
  lineTotal: number
  earnedAt: number
}

/**
 * The conditions under which an order line (alias `ol`, order `o`, appointment `a`, collection instant
 * `pay.collected_at`) is a payable session line of the tenant.
 */
const payable = (tenantId: string, currency: string) => Prisma.sql`
  ol.tenant_id = ${tenantId} AND o.currency = ${currency} AND a.status = 'COMPLETED'
  AND o.status NOT IN ('DRAFT', 'VOID') AND o.total > 0 AND o.amount_paid >= o.total AND ol.line_total > 0`

/**
 * A payment's success as we wrote it: an online payment's `received_at` is written when the processor's success is
 * applied, after the payment was created; a recorded payment is written SUCCEEDED, and its `received_at` is what the
 * centre says (it may be any earlier instant), so its creation is when it counted. The later of the two is never
 * back-dated. An unapplied payment (money the order could not take) collected nothing for the order.
 */
const lineSources = Prisma.sql`
  FROM order_lines ol
  JOIN orders o ON o.id = ol.order_id AND o.tenant_id = ol.tenant_id
  LEFT JOIN sessions s ON s.id = ol.session_id AND s.tenant_id = ol.tenant_id
  JOIN appointments a ON a.id = COALESCE(ol.appointment_id, s.appointment_id) AND a.tenant_id = ol.tenant_id
  CROSS JOIN LATERAL (
    SELECT max(GREATEST(p.created_at, p.received_at)) AS collected_at FROM payments p
    WHERE p.tenant_id = o.tenant_id AND p.order_id = o.id AND p.status = 'SUCCEEDED' AND NOT p.unapplied
  ) pay`

const unsettled = (key: Prisma.Sql) =>
  Prisma.sql`NOT EXISTS (SELECT 1 FROM settlement_items si WHERE si.tenant_id = ol.tenant_id AND si.dedupe_key = ${key})`

/** The provider's payable session lines earned before the end and not yet settled, oldest first. */
export async function payableLines({ tx, tenantId }: UnitOfWork, s: SettlementScope): Promise<PayableLine[]> {
  const rows = await tx.$queryRaw<
    Array<{ line_id: string; order_id: string; appointment_id: string; line_total: number; earned_ms: number }>
  >`
    SELECT ol.id AS line_id, ol.order_id, a.id AS appointment_id, ${money(Prisma.sql`ol.line_total`)} AS line_total,
           ${ms(Prisma.sql`GREATEST(a.completed_at, pay.collected_at)`)} AS earned_ms
    ${lineSources}
    WHERE ${payable(tenantId, s.currency)} AND a.provider_id = ${s.providerId}
      AND GREATEST(a.completed_at, pay.collected_at) < ${s.end}
      AND ${unsettled(Prisma.sql`'SESSION:' || ol.id`)}
    ORDER BY earned_ms, ol.id`
  return rows.map((r) => ({
    orderLineId: r.line_id,
    orderId: r.order_id,
    appointmentId: r.appointment_id,
    lineTotal: r.line_total,
    earnedAt: r.earned_ms,
  }))
}

/** A session line settled before, with the fee rule it was charged under. */
export interface SettledLine {
  orderLineId: string
  orderId: string
  gross: number
  rule: FeeRule
  earnedAt: number
}

/**
 * Whether refund `r` counts at `end`: it succeeded before the end and had not failed by then, and it gave back a
 * payment the order applied. A refund of an unapplied payment (money the order could not take, refunded
 * automatically) returns what the provider's session was never paid with: it is nobody's to give back.
 */
const countsAt = (end: Date) =>
  Prisma.sql`r.succeeded_at < ${end} AND (r.status = 'SUCCEEDED' OR (r.status = 'FAILED' AND r.failed_at >= ${end}))
    AND EXISTS (SELECT 1 FROM payments p WHERE p.id = r.payment_id AND p.tenant_id = r.tenant_id AND NOT p.unapplied)`

/**
 * Whether lost dispute `d` (of payment `p`) counts at `end` as money charged back: lost before the end and not given
 * back by then, on a payment the order applied (issue 46).
 */
const chargebackCountsAt = (end: Date) =>
  Prisma.sql`d.lost_at < ${end} AND (d.reinstated_at IS NULL OR d.reinstated_at >= ${end}) AND NOT p.unapplied`

/** Disputes `d` of the payments `p` of the order of settlement item `si`. */
const disputesOfItemOrder = Prisma.sql`payment_disputes d
  JOIN payments p ON p.id = d.payment_id AND p.tenant_id = d.tenant_id
  WHERE d.tenant_id = si.tenant_id AND p.order_id = si.order_id`

/**
 * Whether a `kind` item of dispute `d` exists on the line of settlement item `si`. Matched by the dispute, not by the
 * dedupe key: items settled before disputes had rows carry `CHARGEBACK:<payment>:<line>` keys (migration
 * payment_disputes gave them their dispute).
 */
const chargebackItem = (kind: 'CHARGEBACK' | 'CHARGEBACK_REVERSAL') =>
  Prisma.sql`EXISTS (SELECT 1 FROM settlement_items x WHERE x.tenant_id = si.tenant_id
                     AND x.order_line_id = si.order_line_id AND x.dispute_id = d.id
                     AND x.kind = ${Prisma.raw(`'${kind}'`)})`

/** Whether settlement item `<kind>:<refund r>:<line of si>` exists. */
const refundItem = (kind: 'REFUND' | 'REFUND_REVERSAL') =>
  Prisma.sql`EXISTS (SELECT 1 FROM settlement_items x WHERE x.tenant_id = si.tenant_id
                     AND x.dedupe_key = ${Prisma.raw(`'${kind}:'`)} || r.id || ':' || si.order_line_id)`

/**
 * Whether refund `r` may take something from the line of settlement item `si`: it names no lines (shared by weight),
 * or names this one. A refund of other lines is never this line's work (issue 58).
 */
const concernsLine = Prisma.sql`(
  NOT EXISTS (SELECT 1 FROM refund_lines rl WHERE rl.tenant_id = r.tenant_id AND rl.refund_id = r.id)
  OR EXISTS (SELECT 1 FROM refund_lines rl WHERE rl.tenant_id = r.tenant_id AND rl.refund_id = r.id
             AND rl.order_line_id = si.order_line_id))`

/**
 * Whether the settled session item `si` has refund work before `end`: a refund (or lost dispute) that counts and was
 * never taken from its line, or one taken from it that failed (was reinstated) and was never given back; or a reserve
 * to make or release (reserve-sources.ts).
 */
const refundWork = (end: Date) => Prisma.sql`(
  EXISTS (SELECT 1 FROM refunds r WHERE r.tenant_id = si.tenant_id AND r.order_id = si.order_id AND ${countsAt(end)}
          AND NOT ${refundItem('REFUND')} AND ${concernsLine})
  OR EXISTS (SELECT 1 FROM refunds r WHERE r.tenant_id = si.tenant_id AND r.order_id = si.order_id
             AND r.status = 'FAILED' AND r.failed_at < ${end}
             AND ${refundItem('REFUND')} AND NOT ${refundItem('REFUND_REVERSAL')})
  OR EXISTS (SELECT 1 FROM ${disputesOfItemOrder}
             AND ${chargebackCountsAt(end)} AND NOT ${chargebackItem('CHARGEBACK')})
  OR EXISTS (SELECT 1 FROM ${disputesOfItemOrder}
             AND d.reinstated_at < ${end}
             AND ${chargebackItem('CHARGEBACK')} AND NOT ${chargebackItem('CHARGEBACK_REVERSAL')})
  OR ${reserveWork(end, concernsLine)})`

/** The provider's settled session lines with refunds to take or give back before the end. */
export async function settledLinesWithRefunds(
  { tx, tenantId }: UnitOfWork,
  s: SettlementScope
): Promise<SettledLine[]> {
  const rows = await tx.$queryRaw<
    Array<{ line_id: string; order_id: string; gross: number; bps: number; fixed: number; earned_ms: number }>
  >`
    SELECT si.order_line_id AS line_id, si.order_id, ${money(Prisma.sql`si.amount`)} AS gross, si.fee_percent_bps AS bps,
           ${money(Prisma.sql`si.fee_fixed_amount`)} AS fixed, ${ms(Prisma.sql`si.earned_at`)} AS earned_ms
    FROM settlement_items si
    JOIN provider_settlements ps ON ps.id = si.provider_settlement_id AND ps.tenant_id = si.tenant_id
    WHERE si.tenant_id = ${tenantId} AND si.kind = 'SESSION' AND ps.provider_id = ${s.providerId}
      AND ps.currency = ${s.currency} AND ${refundWork(s.end)}`
  return rows.map((r) => ({
    orderLineId: r.line_id,
    orderId: r.order_id,
    gross: r.gross,
    rule: { percentBps: r.bps, fixedAmount: r.fixed, fixedCurrency: s.currency },
    earnedAt: r.earned_ms,
  }))
}

/**
 * An order's lines, its refunds and lost disputes as they stand at a settlement's end, and the refund and chargeback
 * items settled on its lines.
 */
export interface OrderRefunds {
  lines: WeightedLine[]
  /** Those that count at the end, in the order they succeeded. */
  refunds: OrderRefund[]
  /** Those that failed before the end. */
  failed: FailedRefund[]
  settled: SettledRefundItem[]
  /** Lost disputes of its applied payments that count at the end. */
  chargebacks: OrderChargeback[]
  /** Lost disputes whose funds came back before the end. */
  reinstated: ReinstatedChargeback[]
  settledChargebacks: SettledChargebackItem[]
}

/** The lines, refunds and settled refund items of some orders, as they stand at `end`. */
export async function ordersWithRefunds(
  { tx, tenantId }: UnitOfWork,
  orderIds: string[],
  end: Date
): Promise<Map<string, OrderRefunds>> {
  const orders = new Map<string, OrderRefunds>()
  if (orderIds.length === 0) return orders
  // A dispute's amount, not its amount lost: one lost before the end and reinstated after it still counts at the end.
  const [lines, refunds, refundLines, failed, settled, chargebacks, reinstated] = await Promise.all([
    tx.$queryRaw<Array<{ id: string; order_id: string; position: number; line_total: number }>>`
      SELECT id, order_id, position, ${money(Prisma.sql`line_total`)} AS line_total FROM order_lines
      WHERE tenant_id = ${tenantId} AND order_id = ANY(${orderIds}::text[]) ORDER BY order_id, position`,
    tx.$queryRaw<Array<{ id: string; order_id: string; amount: number; succeeded_ms: number }>>`
      SELECT r.id, r.order_id, ${money(Prisma.sql`r.amount`)} AS amount, ${ms(Prisma.sql`r.succeeded_at`)} AS succeeded_ms FROM refunds r
      WHERE r.tenant_id = ${tenantId} AND r.order_id = ANY(${orderIds}::text[]) AND ${countsAt(end)}
      ORDER BY r.succeeded_at, r.id`,
    tx.$queryRaw<Array<{ refund_id: string; line_id: string; amount: number }>>`
      SELECT rl.refund_id, rl.order_line_id AS line_id, ${money(Prisma.sql`rl.amount`)} AS amount
      FROM refund_lines rl JOIN refunds r ON r.id = rl.refund_id AND r.tenant_id = rl.tenant_id
      WHERE rl.tenant_id = ${tenantId} AND r.order_id = ANY(${orderIds}::text[]) AND ${countsAt(end)}
      ORDER BY rl.refund_id, rl.position`,
    tx.$queryRaw<Array<{ id: string; order_id: string; failed_ms: number }>>`
      SELECT r.id, r.order_id, ${ms(Prisma.sql`r.failed_at`)} AS failed_ms FROM refunds r
      WHERE r.tenant_id = ${tenantId} AND r.order_id = ANY(${orderIds}::text[])
        AND r.status = 'FAILED' AND r.failed_at < ${end}
      ORDER BY r.failed_at, r.id`,
    tx.$queryRaw<
      Array<{
        order_id: string
        kind: 'REFUND' | 'REFUND_REVERSAL' | 'CHARGEBACK' | 'CHARGEBACK_REVERSAL'
        refund_id: string
        payment_id: string | null
        line_id: string
        amount: number
      }>
    >`
      SELECT ol.order_id, si.kind::text AS kind, COALESCE(si.refund_id, si.dispute_id) AS refund_id, si.payment_id,
             si.order_line_id AS line_id, ${money(Prisma.sql`si.amount`)} AS amount
      FROM settlement_items si
      JOIN order_lines ol ON ol.id = si.order_line_id AND ol.tenant_id = si.tenant_id
      WHERE si.tenant_id = ${tenantId} AND ol.order_id = ANY(${orderIds}::text[])
        AND si.kind IN ('REFUND', 'REFUND_REVERSAL', 'CHARGEBACK', 'CHARGEBACK_REVERSAL')`,
    tx.$queryRaw<Array<{ id: string; payment_id: string; order_id: string; amount: number; lost_ms: number }>>`
      SELECT d.id, d.payment_id, p.order_id, ${money(Prisma.sql`d.amount`)} AS amount,
             ${ms(Prisma.sql`d.lost_at`)} AS lost_ms
      FROM payment_disputes d JOIN payments p ON p.id = d.payment_id AND p.tenant_id = d.tenant_id
      WHERE d.tenant_id = ${tenantId} AND p.order_id = ANY(${orderIds}::text[]) AND ${chargebackCountsAt(end)}`,
    tx.$queryRaw<Array<{ id: string; order_id: string; reinstated_ms: number }>>`
      SELECT d.id, p.order_id, ${ms(Prisma.sql`d.reinstated_at`)} AS reinstated_ms
      FROM payment_disputes d JOIN payments p ON p.id = d.payment_id AND p.tenant_id = d.tenant_id
      WHERE d.tenant_id = ${tenantId} AND p.order_id = ANY(${orderIds}::text[])
        AND d.reinstated_at < ${end} AND d.lost_at IS NOT NULL`,
  ])
  for (const id of orderIds)
    orders.set(id, {
      lines: [],
      refunds: [],
      failed: [],
      settled: [],
      chargebacks: [],
      reinstated: [],
      settledChargebacks: [],
    })
  for (const l of lines)
    orders.get(l.order_id)!.lines.push({ orderLineId: l.id, position: l.position, lineTotal: l.line_total })
  const linesOf = new Map<string, Array<{ orderLineId: string; amount: number }>>()
  for (const l of refundLines)
    linesOf.set(l.refund_id, [...(linesOf.get(l.refund_id) ?? []), { orderLineId: l.line_id, amount: l.amount }])
  for (const r of refunds) {
    const named = linesOf.get(r.id)
    orders.get(r.order_id)!.refunds.push({
      refundId: r.id,
      amount: r.amount,
      succeededAt: r.succeeded_ms,
      ...(named ? { lines: named } : {}),
    })
  }
  for (const r of failed) orders.get(r.order_id)!.failed.push({ refundId: r.id, failedAt: r.failed_ms })
  for (const i of settled) {
    const order = orders.get(i.order_id)!
    if (i.kind === 'CHARGEBACK' || i.kind === 'CHARGEBACK_REVERSAL')
      order.settledChargebacks.push({
        kind: i.kind,
        disputeId: i.refund_id,
        paymentId: i.payment_id ?? '',
        orderLineId: i.line_id,
        amount: i.amount,
      })
    else order.settled.push({ kind: i.kind, refundId: i.refund_id, orderLineId: i.line_id, amount: i.amount })
  }
  for (const c of chargebacks)
    orders
      .get(c.order_id)!
      .chargebacks.push({ disputeId: c.id, paymentId: c.payment_id, amount: c.amount, lostAt: c.lost_ms })
  for (const r of reinstated)
    orders.get(r.order_id)!.reinstated.push({ disputeId: r.id, reinstatedAt: r.reinstated_ms })
  return orders
}

/**
 * Every provider with something to settle in the currency before the end (payable lines, refunds of settled lines
 * to take or give back, adjustments), plus those already settled for exactly this period by another run, in id order.
 */
export async function providersToSettle(
  { tx, tenantId }: UnitOfWork,
  currency: string,
  period: { start: Date; end: Date }
): Promise<string[]> {
  const rows = await tx.$queryRaw<Array<{ provider_id: string }>>`
    SELECT DISTINCT a.provider_id ${lineSources}
    WHERE ${payable(tenantId, currency)} AND GREATEST(a.completed_at, pay.collected_at) < ${period.end}
      AND ${unsettled(Prisma.sql`'SESSION:' || ol.id`)}
    UNION
    SELECT ps.provider_id FROM settlement_items si
    JOIN provider_settlements ps ON ps.id = si.provider_settlement_id AND ps.tenant_id = si.tenant_id
    WHERE si.tenant_id = ${tenantId} AND si.kind = 'SESSION' AND ps.currency = ${currency}
      AND ${refundWork(period.end)}
    UNION
    SELECT pa.provider_id FROM payout_adjustments pa
    WHERE pa.tenant_id = ${tenantId} AND pa.currency = ${currency} AND pa.created_at < ${period.end}
      AND NOT EXISTS (SELECT 1 FROM settlement_items si WHERE si.tenant_id = pa.tenant_id AND si.dedupe_key = 'ADJUSTMENT:' || pa.id)
    UNION
    SELECT ps.provider_id FROM provider_settlements ps
    WHERE ps.tenant_id = ${tenantId} AND ps.currency = ${currency}
      AND ps.period_start = ${period.start} AND ps.period_end = ${period.end}
    ORDER BY provider_id`
  return rows.map((r) => r.provider_id)
}
