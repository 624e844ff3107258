/**
 * @module Payment processors: who moves the money (docs/payments.md).
 *
 * The platform ships one processor, `recorded`: payments the centre took itself (cash at the desk, a card terminal,
 * a bank transfer, an insurer's remittance, a cheque) and records through the API. It moves no money; it
 * accepts what the centre reports, including a failure (a declined card), so the order and the books match the till.
 *
 * Online card payments go through an external processor, behind `OnlinePaymentProcessor` (online-processor.ts),
 * which is two-phase; marketplace payouts behind `PayoutProcessor` (domain/payouts/payout-processor.ts).
 */
import type { PaymentMethod } from '../../generated/prisma/enums.ts'

/** The ways a centre takes money itself. */
export const RECORDED_METHODS = [
  'CASH',
  'CARD_TERMINAL',
  'BANK_TRANSFER',
  'INSURER_REMITTANCE',
  'CHEQUE',
] as const satisfies readonly PaymentMethod[]

/** Why a payment failed (stable codes, documented in docs/payments.md). */
export const PAYMENT_FAILURE_CODES = [
  'CARD_DECLINED',
  'INSUFFICIENT_FUNDS',
  'EXPIRED_CARD',
  'TERMINAL_ERROR',
  'PAYMENT_REJECTED',
  'OTHER',
] as const

export type PaymentFailureCode = (typeof PAYMENT_FAILURE_CODES)[number]

export interface CollectRequest {
  paymentId: string
  orderId: string
  /** Integer minor units of `currency`. */
  amount: number
  currency: string
  method: PaymentMethod
  /** The centre's own reference (receipt, slip, cheque or remittance-advice number). */
  reference?: string
  /** For recorded payments: the failure the centre reports (a declined card), if the attempt failed. */
  reportedFailure?: { code: PaymentFailureCode; message?: string }
}

export type CollectOutcome =
  | { status: 'SUCCEEDED'; processorReference: string | null }
  | {
      status: 'FAILED'
      processorReference: string | null
      failureCode: PaymentFailureCode
      failureMessage: string | null
    }

export interface RefundRequest {
  refundId: string
  paymentId: string
  amount: number
  currency: string
  /** The processor's reference of the payment being refunded. */
  processorReference: string | null
}

export interface RefundOutcome {
  status: 'SUCCEEDED'
  processorReference: string | null
}

/** A processor that settles synchronously, inside the caller's unit of work (so: no network calls). */
export interface PaymentProcessor {
  /** Stored on each payment as `processor`. */
  readonly name: string
  /** Whether this processor takes payments by `method`. */
  handles(method: PaymentMethod): boolean
  collect(request: CollectRequest): Promise<CollectOutcome>
  refund(request: RefundRequest): Promise<RefundOutcome>
}

/**
 * Payments recorded by the centre. The money already changed hands (or failed to) at the desk, so the outcome is what
 * the centre reports: succeeded, or failed with a code. A recorded refund is money the centre handed back.
 */
export const recordedPaymentProcessor: PaymentProcessor = {
  name: 'recorded',
  handles: (method) => (RECORDED_METHODS as readonly string[]).includes(method),
  async collect(request) {
    if (request.reportedFailure) {
      return {
        status: 'FAILED',
        processorReference: null,
        failureCode: request.reportedFailure.code,
        failureMessage: request.reportedFailure.message ?? null,
      }
    }
    return { status: 'SUCCEEDED', processorReference: null }
  },
  async refund() {
    return { status: 'SUCCEEDED', processorReference: null }
  },
}

/**
 * The processor that takes payments by `method`. Recorded methods go to the recorded processor; there is no online
 * method until an online processor is configured.
 * @returns undefined when no configured processor handles `method`
 */
export function processorFor(
  method: PaymentMethod,
  processors: readonly PaymentProcessor[]
): PaymentProcessor | undefined {
  return processors.find((p) => p.handles(method))
}
