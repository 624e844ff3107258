/**
 * @module Turning requested order lines into priced lines. A line's unit amount is the one given, else its price-list
 * entry's (`priceId`), else the price of its `service` (given, or the appointment's) at the order's location
 * (priceForService, with the appointment's type when the line references an appointment). Every line is in the order's currency: one currency
 * per order, so totals are sums of like with like.
 */
import type { OrderLineKind } from '../../generated/prisma/enums.ts'
import type { UnitOfWork } from '../../infra/unit-of-work.ts'
import type { Discipline } from '../catalogue/disciplines.ts'
import { validationError, type FieldError } from '../errors.ts'
import { priceForService } from '../pricing/price-for-service.ts'
import { computeTotals, type OrderTotals } from './order-totals.ts'

export interface OrderLineInput {
  kind: OrderLineKind
  description?: string
  /** The discipline delivered; defaults to the price's service. */
  service?: Discipline
  quantity: number
  unitAmount?: number
  discountAmount?: number
  taxAmount?: number
  /** Optional; when given it must be the order's currency. */
  currency?: string
  priceId?: string
  appointmentId?: string
  sessionId?: string
}

export interface PricedLine {
  position: number
  kind: OrderLineKind
  description: string
  service: string | null
  quantity: number
  unitAmount: number
  discountAmount: number
  taxAmount: number
  lineTotal: number
  priceId: string | null
  appointmentId: string | null
  sessionId: string | null
}

export interface OrderContext {
  locationId: string
  currency: string
  childId: string | null
}

const DEFAULT_DESCRIPTIONS: Record<OrderLineKind, string> = {
  SESSION: 'Therapy session',
  SESSION_PACKAGE: 'Session package',
  ASSESSMENT: 'Assessment',
  PRODUCT: 'Product',
}

/**
 * Prices the lines of an order and computes its totals.
 * @throws AppError `validation_error` naming each bad line field (`lines.<i>.<field>`): unknown price or appointment,
 *   `currency_mismatch`, `price_inactive`, `child_mismatch`, `price_not_configured`, `discount_exceeds_amount`...
 */
export async function priceLines(
  uow: UnitOfWork,
  order: OrderContext,
  lines: readonly OrderLineInput[]
): Promise<{ lines: PricedLine[]; totals: OrderTotals }> {
  const { tx, tenantId } = uow
  const priceIds = [...new Set(lines.flatMap((l) => (l.priceId ? [l.priceId] : [])))]
  const appointmentIds = [...new Set(lines.flatMap((l) => (l.appointmentId ? [l.appointmentId] : [])))]
  const sessionIds = [...new Set(lines.flatMap((l) => (l.sessionId ? [l.sessionId] : [])))]
  const [prices, appointments, sessions] = await Promise.all([
    priceIds.length ? tx.price.findMany({ where: { tenantId, id: { in: priceIds } } }) : [],
    appointmentIds.length
      ? tx.appointment.findMany({
          where: { tenantId, id: { in: appointmentIds } },
          select: { id: true, childId: true, type: true, service: true },
        })
      : [],
    sessionIds.length
      ? tx.session.findMany({
          where: { tenantId, id: { in: sessionIds } },
          select: { id: true, childId: true, appointmentId: true },
        })
      : [],
  ])
  const priceById = new Map(prices.map((p) => [p.id, p]))
  const appointmentById = new Map(appointments.map((a) => [a.id, a]))
  const sessionById = new Map(sessions.map((x) => [x.id, x]))

  const errors: FieldError[] = []
  const priced: PricedLine[] = []
  for (const [index, line] of lines.entries()) {
    const at = (field: string) => `lines.${index}.${field}`
    const fail = (field: string, code: string, message: string) => errors.push({ path: at(field), code, message })
    if (line.currency !== undefined && line.currency !== order.currency) {
      fail('currency', 'currency_mismatch', `An order has one currency; this order is in ${order.currency}.`)
    }
    const price = line.priceId ? priceById.get(line.priceId) : undefined
    if (line.priceId && !price) fail('priceId', 'not_found', 'No price with this id.')
    if (price && price.currency !== order.currency) {
      fail('priceId', 'currency_mismatch', `This price is in ${price.currency}; the order is in ${order.currency}.`)
    }
    if (price && (!price.active || price.archivedAt)) fail('priceId', 'price_inactive', 'This price is not active.')
    const appointment = line.appointmentId ? appointmentById.get(line.appointmentId) : undefined
    if (line.appointmentId && !appointment) fail('appointmentId', 'not_found', 'No appointment with this id.')
    if (appointment && order.childId !== null && appointment.childId !== order.childId) {
      fail('appointmentId', 'child_mismatch', "This appointment is for another child than the order's.")
    }
    const session = line.sessionId ? sessionById.get(line.sessionId) : undefined
    if (line.sessionId && !session) fail('sessionId', 'not_found', 'No session with this id.')
    if (session && appointment && session.appointmentId !== appointment.id) {
      fail('sessionId', 'appointment_mismatch', "This session belongs to another appointment than the line's.")
    }
    if (session && order.childId !== null && session.childId !== order.childId) {
      fail('sessionId', 'child_mismatch', "This session is for another child than the order's.")
    }
    const service = line.service ?? price?.service ?? appointment?.service ?? null

    let unitAmount = line.unitAmount ?? price?.amount
    let priceId = price?.id ?? null
    if (unitAmount === undefined) {
      if (service === null) {
        fail('unitAmount', 'required', 'Give unitAmount, a priceId, or a service with a price on the price list.')
        continue
      }
      const found = await priceForService(uow, {
        locationId: order.locationId,
        service,
        appointmentType: appointment?.type,
      })
      if (found.priceId === null || found.currency !== order.currency) {
        fail(
          'unitAmount',
          'price_not_configured',
          `No active ${order.currency} price for ${service} here; give unitAmount.`
        )
        continue
      }
      unitAmount = found.amount
      priceId = found.priceId
    }
    priced.push({
      position: index,
      kind: line.kind,
      description: line.description ?? price?.description ?? DEFAULT_DESCRIPTIONS[line.kind],
      service,
      quantity: line.quantity,
      unitAmount,
      discountAmount: line.discountAmount ?? 0,
      taxAmount: line.taxAmount ?? 0,
      lineTotal: 0,
      priceId,
      appointmentId: line.appointmentId ?? null,
      sessionId: line.sessionId ?? null,
    })
  }
  if (errors.length) throw validationError(errors)

  const result = computeTotals(priced)
  if ('errors' in result) throw validationError(result.errors)
  result.lineTotals.forEach((total, i) => (priced[i]!.lineTotal = total))
  return { lines: priced, totals: result.totals }
}
