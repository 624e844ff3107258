/**
 * @module The money-specific errors (codes documented in docs/payments.md). Both are 409: the request is well-formed,
 * but the order's or payment's current state makes it impossible, and a later state may allow it.
 */
import { AppError } from '../errors.ts'
import { describeAmount } from '../pricing/money.ts'

/** A payment larger than what is left to pay: refused whole, never capped, so no money goes unaccounted. */
export const amountExceedsBalance = (orderId: string, balance: number, currency: string) =>
  new AppError(409, 'amount_exceeds_balance', 'Amount exceeds balance', {
    detail: `Order ${orderId} has ${describeAmount(balance, currency)} left to pay; a payment cannot exceed it.`,
  })

/** A refund larger than what is left of the payment after earlier refunds. */
export const amountExceedsRefundable = (paymentId: string, refundable: number, currency: string) =>
  new AppError(409, 'amount_exceeds_refundable', 'Amount exceeds refundable', {
    detail: `Payment ${paymentId} has ${describeAmount(refundable, currency)} left to refund.`,
  })
