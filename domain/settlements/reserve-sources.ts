/**
 * @module What a provider settlement reads for its reserves (reserves.ts, docs/marketplace.md "Reserves"): the
 * refunds pending and the disputes open at its end, and the reserves settled before with what became of their refund
 * or dispute. Plain SQL (instants as epoch milliseconds), every statement filtered by tenant on top of row-level
 * security.
 *
 * Both are read as they stood at the end, from instants written when they happened, so that settling a period later
 * never changes what it holds:
 *
 * - A refund of an applied payment is pending at `end` when it was recorded before it and had neither succeeded nor
 *   failed by then (`succeeded_at`, `failed_at`); it closed at the first of the two.
 * - A dispute of an applied payment is open at `end` when the processor withdrew its funds before it
 *   (`funds_withdrawn_at`: an inquiry withdraws none, so it holds nothing back until it escalates to a chargeback) and
 *   it had not been decided by then. It was decided when it was lost (`lost_at`), or else when its row was last
 *   written: WON and CLOSED are final (dispute-transitions.ts), so nothing writes the row of a dispute decided that
 *   way again, and a lost one reinstated keeps its `lost_at`.
 */
import { Prisma } from '../../generated/prisma/client.ts'
import type { UnitOfWork } from '../../infra/unit-of-work.ts'
import type { HeldReserve, PendingMoney } from './reserves.ts'

const ms = (column: Prisma.Sql) => Prisma.sql`(extract(epoch FROM ${column}) * 1000)::float8`
/** A money column (BIGINT) as a number (settlement-sources.ts). */
const money = (column: Prisma.Sql) => Prisma.sql`${column}::float8`

/** Refund `r`, of an applied payment, pending at `end`. */
const refundPendingAt = (end: Date) => Prisma.sql`r.created_at < ${end}
  AND (r.succeeded_at IS NULL OR r.succeeded_at >= ${end}) AND (r.failed_at IS NULL OR r.failed_at >= ${end})
  AND EXISTS (SELECT 1 FROM payments p WHERE p.id = r.payment_id AND p.tenant_id = r.tenant_id AND NOT p.unapplied)`

/** When refund `r` stopped being pending (NULL while it is). */
const refundClosed = Prisma.sql`LEAST(r.succeeded_at, r.failed_at)`

/** When dispute `d` was decided (NULL while it is open). */
const disputeDecided = Prisma.sql`CASE WHEN d.status <> 'OPEN' THEN COALESCE(d.lost_at, d.updated_at) END`

/**
 * Dispute `d`, of payment `p` the order applied, open at `end` with its funds withdrawn: the money Stripe took is what
 * a reserve holds back, and an inquiry took none.
 */
const disputeOpenAt = (end: Date) =>
  Prisma.sql`d.funds_withdrawn_at < ${end} AND NOT p.unapplied AND (d.status = 'OPEN' OR ${disputeDecided} >= ${end})`

/** Whether settlement item `<kind>:<source>:<line of si>` exists. */
const reserveItem = (kind: 'RESERVE' | 'RESERVE_RELEASE', source: Prisma.Sql, line: Prisma.Sql) =>
  Prisma.sql`EXISTS (SELECT 1 FROM settlement_items x WHERE x.tenant_id = si.tenant_id
                     AND x.dedupe_key = ${Prisma.raw(`'${kind}:'`)} || ${source} || ':' || ${line})`

/**
 * Whether the settled session item `si` has reserve work before `end`: a refund pending or a dispute open with no
 * reserve on its line yet, or a reserve on its line whose refund or dispute closed before the end and was never
 * released.
 * @param concernsLine - whether refund `r` may take something from the line of `si` (settlement-sources.ts)
 */
export const reserveWork = (end: Date, concernsLine: Prisma.Sql) => Prisma.sql`(
  EXISTS (SELECT 1 FROM refunds r WHERE r.tenant_id = si.tenant_id AND r.order_id = si.order_id
          AND ${refundPendingAt(end)} AND ${concernsLine}
          AND NOT ${reserveItem('RESERVE', Prisma.sql`r.id`, Prisma.sql`si.order_line_id`)})
  OR EXISTS (SELECT 1 FROM payment_disputes d JOIN payments p ON p.id = d.payment_id AND p.tenant_id = d.tenant_id
             WHERE d.tenant_id = si.tenant_id AND p.order_id = si.order_id AND ${disputeOpenAt(end)}
             AND NOT ${reserveItem('RESERVE', Prisma.sql`d.id`, Prisma.sql`si.order_line_id`)})
  OR EXISTS (SELECT 1 FROM settlement_items h
             LEFT JOIN refunds r ON r.id = h.refund_id AND r.tenant_id = h.tenant_id
             LEFT JOIN payment_disputes d ON d.id = h.dispute_id AND d.tenant_id = h.tenant_id
             WHERE h.tenant_id = si.tenant_id AND h.order_line_id = si.order_line_id AND h.kind = 'RESERVE'
               AND COALESCE(${refundClosed}, ${disputeDecided}) < ${end}
               AND NOT ${reserveItem('RESERVE_RELEASE', Prisma.sql`COALESCE(h.refund_id, h.dispute_id)`, Prisma.sql`si.order_line_id`)}))`

/** An order's refunds pending and disputes open at a settlement's end, and the reserves held on its lines. */
export interface OrderReserves {
  pending: PendingMoney[]
  held: HeldReserve[]
}

/** The reserve facts of some orders, as they stand at `end`. */
export async function ordersWithReserves(
  { tx, tenantId }: UnitOfWork,
  orderIds: string[],
  end: Date
): Promise<Map<string, OrderReserves>> {
  const orders = new Map<string, OrderReserves>(orderIds.map((id) => [id, { pending: [], held: [] }]))
  if (orderIds.length === 0) return orders
  const [refunds, refundLines, disputes, items] = await Promise.all([
    tx.$queryRaw<Array<{ id: string; order_id: string; amount: number; opened_ms: number }>>`
      SELECT r.id, r.order_id, ${money(Prisma.sql`r.amount`)} AS amount, ${ms(Prisma.sql`r.created_at`)} AS opened_ms
      FROM refunds r
      WHERE r.tenant_id = ${tenantId} AND r.order_id = ANY(${orderIds}::text[]) AND ${refundPendingAt(end)}`,
    tx.$queryRaw<Array<{ refund_id: string; line_id: string; amount: number }>>`
      SELECT rl.refund_id, rl.order_line_id AS line_id, ${money(Prisma.sql`rl.amount`)} AS amount
      FROM refund_lines rl JOIN refunds r ON r.id = rl.refund_id AND r.tenant_id = rl.tenant_id
      WHERE rl.tenant_id = ${tenantId} AND r.order_id = ANY(${orderIds}::text[]) AND ${refundPendingAt(end)}
      ORDER BY rl.refund_id, rl.position`,
    tx.$queryRaw<Array<{ id: string; payment_id: string; order_id: string; amount: number; opened_ms: number }>>`
      SELECT d.id, d.payment_id, p.order_id, ${money(Prisma.sql`d.amount`)} AS amount,
             ${ms(Prisma.sql`d.funds_withdrawn_at`)} AS opened_ms
      FROM payment_disputes d JOIN payments p ON p.id = d.payment_id AND p.tenant_id = d.tenant_id
      WHERE d.tenant_id = ${tenantId} AND p.order_id = ANY(${orderIds}::text[]) AND ${disputeOpenAt(end)}`,
    tx.$queryRaw<
      Array<{
        order_id: string
        kind: 'RESERVE' | 'RESERVE_RELEASE'
        refund_id: string | null
        dispute_id: string | null
        payment_id: string | null
        line_id: string
        amount: number
        fee: number
        closed_ms: number | null
      }>
    >`
      SELECT h.order_id, h.kind::text AS kind, h.refund_id, h.dispute_id, h.payment_id, h.order_line_id AS line_id,
             ${money(Prisma.sql`h.amount`)} AS amount, ${money(Prisma.sql`h.fee_amount`)} AS fee,
             CASE WHEN COALESCE(${refundClosed}, ${disputeDecided}) < ${end}
                  THEN ${ms(Prisma.sql`COALESCE(${refundClosed}, ${disputeDecided})`)} END AS closed_ms
      FROM settlement_items h
      LEFT JOIN refunds r ON r.id = h.refund_id AND r.tenant_id = h.tenant_id
      LEFT JOIN payment_disputes d ON d.id = h.dispute_id AND d.tenant_id = h.tenant_id
      WHERE h.tenant_id = ${tenantId} AND h.order_id = ANY(${orderIds}::text[])
        AND h.kind IN ('RESERVE', 'RESERVE_RELEASE')`,
  ])
  const linesOf = new Map<string, Array<{ orderLineId: string; amount: number }>>()
  for (const l of refundLines)
    linesOf.set(l.refund_id, [...(linesOf.get(l.refund_id) ?? []), { orderLineId: l.line_id, amount: l.amount }])
  for (const r of refunds) {
    const named = linesOf.get(r.id)
    orders.get(r.order_id)!.pending.push({
      source: 'REFUND',
      id: r.id,
      amount: r.amount,
      openedAt: r.opened_ms,
      ...(named ? { lines: named } : {}),
    })
  }
  for (const d of disputes)
    orders
      .get(d.order_id)!
      .pending.push({ source: 'DISPUTE', id: d.id, paymentId: d.payment_id, amount: d.amount, openedAt: d.opened_ms })
  const released = new Set(
    items.filter((i) => i.kind === 'RESERVE_RELEASE').map((i) => `${i.refund_id ?? i.dispute_id}:${i.line_id}`)
  )
  for (const i of items.filter((i) => i.kind === 'RESERVE')) {
    const sourceId = i.refund_id ?? i.dispute_id ?? ''
    orders.get(i.order_id)!.held.push({
      source: i.refund_id !== null ? 'REFUND' : 'DISPUTE',
      sourceId,
      ...(i.payment_id !== null ? { paymentId: i.payment_id } : {}),
      orderLineId: i.line_id,
      amount: i.amount,
      fee: i.fee,
      released: released.has(`${sourceId}:${i.line_id}`),
      closedAt: i.closed_ms,
    })
  }
  return orders
}
