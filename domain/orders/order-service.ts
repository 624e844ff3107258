/**
 * @module Orders: what a payer owes the centre, with line items, in one currency (docs/payments.md). Created as a
 * DRAFT (editable) or straight away OPEN; finalizing opens a draft; voiding cancels an order nothing was paid on.
 * Money moves only through payments and refunds (domain/payments), which lock the order row so two concurrent
 * payments see each other's effect: `lockOrderMoney` where only its money and status are needed (a recorded payment),
 * `lockOrder`, which reads its lines too, everywhere else.
 */
import { Prisma, type Order } from '../../generated/prisma/client.ts'
import type { UnitOfWork } from '../../infra/unit-of-work.ts'
import { invalidStateTransition, notFound, validationError } from '../errors.ts'
import { newId } from '../ids.ts'
import { resolveLocation } from '../locations/resolve-location.ts'
import { isCurrency } from '../pricing/currencies.ts'
import { priceLines, type OrderLineInput, type PricedLine } from './order-lines.ts'
import { assertTransition, REFUND_UNDO_TRANSITIONS, statusFromMoney, type OrderStatus } from './order-status.ts'

export interface CreateOrderInput {
  locationId?: string
  clientId?: string
  childId?: string
  currency?: string
  /** DRAFT (default) to keep editing, OPEN to finalize at once. */
  status?: 'DRAFT' | 'OPEN'
  lines: OrderLineInput[]
}

/** The writable fields of a draft (JSON merge patch: null removes clientId or childId; `lines` replaces all lines). */
export interface OrderPatch {
  clientId?: string | null
  childId?: string | null
  currency?: string
  lines?: OrderLineInput[]
}

const withLines = { lines: { orderBy: { position: 'asc' } } } as const satisfies Prisma.OrderInclude

export type OrderWithLines = Prisma.OrderGetPayload<{ include: typeof withLines }>

function assertCurrency(currency: string) {
  if (!isCurrency(currency)) {
    throw validationError([{ path: 'currency', code: 'unknown_currency', message: 'Not an ISO 4217 currency code.' }])
  }
}

async function assertClient({ tx, tenantId }: UnitOfWork, clientId: string | null | undefined) {
  if (!clientId) return
  const client = await tx.client.findFirst({ where: { id: clientId, tenantId }, select: { id: true } })
  if (!client) throw validationError([{ path: 'clientId', code: 'not_found', message: 'No client with this id.' }])
}

async function assertChild({ tx, tenantId }: UnitOfWork, childId: string | null | undefined) {
  if (!childId) return
  const child = await tx.child.findFirst({ where: { id: childId, tenantId }, select: { id: true } })
  if (!child) throw validationError([{ path: 'childId', code: 'not_found', message: 'No child with this id.' }])
}

const lineRows = (tenantId: string, orderId: string, lines: PricedLine[]) =>
  lines.map((line) => ({ id: newId('orderLine'), tenantId, orderId, ...line }))

/** Status and timestamps of an order leaving DRAFT now. */
function opening(total: number, now: Date) {
  const status = statusFromMoney({ total, amountPaid: 0, amountRefunded: 0 })
  return { status, openedAt: now, paidAt: status === 'PAID' ? now : null }
}

/**
 * Creates an order with its lines.
 * @throws AppError `validation_error` (unknown location, child, price or appointment; currency mismatch; bad amounts)
 */
export async function createOrder(uow: UnitOfWork, input: CreateOrderInput, now: Date): Promise<OrderWithLines> {
  const { tx, tenantId } = uow
  const location = await resolveLocation(uow, input.locationId)
  const currency = input.currency ?? location.currency
  assertCurrency(currency)
  await assertClient(uow, input.clientId)
  await assertChild(uow, input.childId)
  const childId = input.childId ?? null
  const { lines, totals } = await priceLines(uow, { locationId: location.id, currency, childId }, input.lines)
  const id = newId('order')
  const state = input.status === 'OPEN' ? opening(totals.total, now) : { status: 'DRAFT' as const }
  await tx.order.create({
    data: {
      id,
      tenantId,
      locationId: location.id,
      clientId: input.clientId ?? null,
      childId,
      currency,
      ...totals,
      balance: totals.total,
      ...state,
    },
  })
  await tx.orderLine.createMany({ data: lineRows(tenantId, id, lines) })
  return getOrder(uow, id)
}

/** One order of the unit's tenant, with its lines. @throws AppError `not_found` */
export async function getOrder({ tx, tenantId }: UnitOfWork, id: string): Promise<OrderWithLines> {
  const order = await tx.order.findFirst({ where: { id, tenantId }, include: withLines })
  if (!order) throw notFound('order', id)
  return order
}

/**
 * Locks an order's row for the rest of the transaction (SELECT … FOR UPDATE) and reads it: every change to an
 * order's money or status goes through here, so concurrent changes queue instead of overwriting each other.
 * @throws AppError `not_found`
 */
export async function lockOrder(uow: UnitOfWork, id: string): Promise<OrderWithLines> {
  const locked = await uow.tx.$queryRaw<Array<{ id: string }>>`
    SELECT id FROM orders WHERE id = ${id} AND tenant_id = ${uow.tenantId} FOR UPDATE`
  if (locked.length === 0) throw notFound('order', id)
  return getOrder(uow, id)
}

/** What an order's money and status are decided from, and what a payment copies from the order it pays. */
export type OrderMoney = Pick<
  Order,
  | 'id'
  | 'locationId'
  | 'clientId'
  | 'currency'
  | 'status'
  | 'total'
  | 'amountPaid'
  | 'amountRefunded'
  | 'balance'
  | 'paidAt'
>

/**
 * Locks an order's row as {@link lockOrder} does, reading only its money and status in the lock's own statement: for
 * a payment, which never needs the order's lines. Every recorded payment takes this path (the webhook bench's emitting
 * call), so it is one statement through the driver rather than three through Prisma (docs/benchmarks.md).
 * @throws AppError `not_found`
 */
export async function lockOrderMoney(uow: UnitOfWork, id: string): Promise<OrderMoney> {
  // FOR UPDATE answers the row as it is once the lock is held (a payment committed while this one waited included).
  const [order] = await uow.query<OrderMoney>(Prisma.sql`
    SELECT id, location_id AS "locationId", client_id AS "clientId", currency, status::text AS status,
      total::float8 AS total, amount_paid::float8 AS "amountPaid", amount_refunded::float8 AS "amountRefunded",
      balance::float8 AS balance, paid_at AS "paidAt"
    FROM orders WHERE id = ${id} AND tenant_id = ${uow.tenantId} FOR UPDATE`)
  if (!order) throw notFound('order', id)
  return order
}

/**
 * Applies a merge patch to a draft; changing lines or currency re-prices every line.
 * @throws AppError `not_found`, `invalid_state_transition` (not a draft), `validation_error`
 */
export async function updateOrder(uow: UnitOfWork, id: string, patch: OrderPatch): Promise<OrderWithLines> {
  const { tx, tenantId } = uow
  const order = await lockOrder(uow, id)
  if (order.status !== 'DRAFT') {
    throw invalidStateTransition(`Order ${id} is ${order.status}; only a DRAFT order can be edited.`)
  }
  const currency = patch.currency ?? order.currency
  assertCurrency(currency)
  await assertClient(uow, patch.clientId)
  if (patch.childId !== undefined) await assertChild(uow, patch.childId)
  const childId = patch.childId === undefined ? order.childId : patch.childId
  const reprice = patch.lines !== undefined || patch.currency !== undefined || patch.childId !== undefined
  let totals = {}
  if (reprice) {
    const requested = patch.lines ?? order.lines.map(storedLineAsInput)
    const priced = await priceLines(uow, { locationId: order.locationId, currency, childId }, requested)
    totals = { ...priced.totals, balance: priced.totals.total }
    await tx.orderLine.deleteMany({ where: { orderId: id, tenantId } })
    await tx.orderLine.createMany({ data: lineRows(tenantId, id, priced.lines) })
  }
  await tx.order.update({
    where: { id },
    data: { clientId: patch.clientId, childId, currency, ...totals },
  })
  return getOrder(uow, id)
}

/** A stored line as a request, to re-price it unchanged (its unit amount kept) when only the currency or child change. */
function storedLineAsInput(line: OrderWithLines['lines'][number]): OrderLineInput {
  return {
    kind: line.kind,
    description: line.description,
    service: (line.service ?? undefined) as OrderLineInput['service'],
    quantity: line.quantity,
    unitAmount: line.unitAmount,
    discountAmount: line.discountAmount,
    taxAmount: line.taxAmount,
    priceId: line.priceId ?? undefined,
    appointmentId: line.appointmentId ?? undefined,
    sessionId: line.sessionId ?? undefined,
  }
}

/** Finalizes a draft: OPEN, or PAID at once when its total is 0. @throws AppError `not_found`, `invalid_state_transition` */
export async function finalizeOrder(uow: UnitOfWork, id: string, now: Date): Promise<OrderWithLines> {
  const order = await lockOrder(uow, id)
  if (order.status !== 'DRAFT')
    throw invalidStateTransition(`Order ${id} is ${order.status}; only a DRAFT is finalized.`)
  const next = opening(order.total, now)
  assertTransition(order.status, next.status, 'finalize')
  await uow.tx.order.update({ where: { id }, data: next })
  return getOrder(uow, id)
}

/**
 * Voids an order nothing has been paid on (a DRAFT or an OPEN order); once money was taken, refund it instead.
 * @throws AppError `not_found`, `invalid_state_transition`
 */
export async function voidOrder(uow: UnitOfWork, id: string, now: Date): Promise<OrderWithLines> {
  const order = await lockOrder(uow, id)
  assertTransition(order.status, 'VOID', 'void')
  if (order.status === 'VOID') throw invalidStateTransition(`Order ${id} is already VOID.`)
  // An online payment whose payer holds its intent may still succeed: the order must not be voided under it
  // (docs/payments.md, "Voiding an order"). Should the processor confirm one anyway, it is refunded automatically.
  const pending = await uow.tx.payment.findFirst({
    where: { tenantId: uow.tenantId, orderId: id, status: 'PENDING', processorReference: { not: null } },
    select: { id: true },
  })
  if (pending) {
    throw invalidStateTransition(
      `Order ${id} has an online payment awaiting its payer (${pending.id}): cancel it first ` +
        `(POST /v1/payments/${pending.id}/cancel), or let it settle or expire.`
    )
  }
  await uow.tx.order.update({ where: { id }, data: { status: 'VOID', voidedAt: now } })
  return getOrder(uow, id)
}

/**
 * Writes new paid and refunded amounts of a locked order, with the balance and status they imply.
 * @param order - the order as locked by {@link lockOrder} or {@link lockOrderMoney} in this unit of work
 * @param undoingFailedRefund - the change gives back a refund the processor could not make
 *   ({@link REFUND_UNDO_TRANSITIONS}); every other change only moves forward
 */
export async function applyOrderMoney(
  uow: UnitOfWork,
  order: Pick<OrderMoney, 'id' | 'total' | 'status' | 'paidAt'>,
  money: { amountPaid: number; amountRefunded: number },
  now: Date,
  undoingFailedRefund = false
): Promise<OrderStatus> {
  const status = statusFromMoney({ total: order.total, ...money })
  if (!undoingFailedRefund || !REFUND_UNDO_TRANSITIONS[order.status]?.includes(status)) {
    assertTransition(order.status, status, 'change the money of')
  }
  // Straight through the driver: every payment and refund moves its order's money here.
  await uow.query(Prisma.sql`
    UPDATE orders SET amount_paid = ${money.amountPaid}::bigint, amount_refunded = ${money.amountRefunded}::bigint,
      balance = ${order.total - money.amountPaid}::bigint, status = ${status}::"OrderStatus",
      paid_at = ${order.paidAt ?? (status === 'PAID' ? now : null)}::timestamptz, updated_at = ${now}::timestamptz
    WHERE id = ${order.id} AND tenant_id = ${uow.tenantId}`)
  return status
}
