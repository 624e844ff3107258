/**
 * @module The order state machine (docs/payments.md).
 *
 *   DRAFT ──finalize──► OPEN ──payment──► PARTIALLY_PAID ──payment──► PAID
 *     │   (total 0: PAID)  │                    │                        │
 *     └──void──► VOID ◄────┘ (nothing paid)     └───────refund───────────┴──► PARTIALLY_REFUNDED ──refund──► REFUNDED
 *
 * Only a DRAFT is edited. Once finalized, the status follows the money: it is derived from total, amountPaid and
 * amountRefunded by {@link statusFromMoney}, so it cannot drift from the amounts. VOID and REFUNDED are terminal,
 * except that a refund an online processor reports failed is undone ({@link REFUND_UNDO_TRANSITIONS}). Anything else
 * is 409 `invalid_state_transition`.
 */
import type { OrderStatus } from '../../generated/prisma/enums.ts'
import { invalidStateTransition } from '../errors.ts'

export type { OrderStatus }

export const ORDER_STATUSES = [
  'DRAFT',
  'OPEN',
  'PARTIALLY_PAID',
  'PAID',
  'PARTIALLY_REFUNDED',
  'REFUNDED',
  'VOID',
] as const satisfies readonly OrderStatus[]

/** Every status each status may move to (a status may also stay as it is, e.g. a second partial refund). */
export const ORDER_TRANSITIONS: Readonly<Record<OrderStatus, readonly OrderStatus[]>> = {
  DRAFT: ['OPEN', 'PAID', 'VOID'],
  OPEN: ['PARTIALLY_PAID', 'PAID', 'VOID'],
  PARTIALLY_PAID: ['PAID', 'PARTIALLY_REFUNDED', 'REFUNDED'],
  PAID: ['PARTIALLY_REFUNDED', 'REFUNDED'],
  PARTIALLY_REFUNDED: ['REFUNDED'],
  REFUNDED: [],
  VOID: [],
}

export interface OrderMoney {
  total: number
  amountPaid: number
  amountRefunded: number
}

/**
 * The status of a finalized, unvoided order with these amounts. A refund marks the order refunded (partially until
 * everything paid went back); a refund does not reopen the balance: it is money the centre chose to return.
 */
export function statusFromMoney({ total, amountPaid, amountRefunded }: OrderMoney): OrderStatus {
  if (amountRefunded > 0) return amountRefunded >= amountPaid ? 'REFUNDED' : 'PARTIALLY_REFUNDED'
  if (amountPaid >= total) return 'PAID'
  return amountPaid === 0 ? 'OPEN' : 'PARTIALLY_PAID'
}

/** Whether `from` may become `to`. */
/**
 * A refund the online processor reports failed never gave the money back: the order returns to what its amounts then
 * say. Only undoing such a refund moves an order back along the refund arrows (domain/payments/online-payment-service.ts).
 */
export const REFUND_UNDO_TRANSITIONS: Readonly<Partial<Record<OrderStatus, readonly OrderStatus[]>>> = {
  REFUNDED: ['PARTIALLY_REFUNDED', 'PAID', 'PARTIALLY_PAID'],
  PARTIALLY_REFUNDED: ['PAID', 'PARTIALLY_PAID'],
}

export const canTransition = (from: OrderStatus, to: OrderStatus) => from === to || ORDER_TRANSITIONS[from].includes(to)

/**
 * Checks a transition.
 * @param action - what was attempted, for the message (e.g. "void", "record a payment on")
 * @throws AppError `invalid_state_transition`
 */
export function assertTransition(from: OrderStatus, to: OrderStatus, action: string): void {
  if (!canTransition(from, to)) {
    throw invalidStateTransition(`Cannot ${action} an order that is ${from} (it would become ${to}).`)
  }
}

/** Statuses that accept a payment (when there is a balance left). */
export const ACCEPTS_PAYMENT: readonly OrderStatus[] = ['OPEN', 'PARTIALLY_PAID', 'PARTIALLY_REFUNDED']

/**
 * Checks that an order can take a payment at all (balance aside).
 * @throws AppError `invalid_state_transition` for a draft, void, paid or refunded order
 */
export function assertAcceptsPayment(status: OrderStatus): void {
  if (ACCEPTS_PAYMENT.includes(status)) return
  const why = status === 'DRAFT' ? 'finalize it first' : status === 'PAID' ? 'nothing is left to pay' : 'it is closed'
  throw invalidStateTransition(`Cannot record a payment on an order that is ${status}: ${why}.`)
}
