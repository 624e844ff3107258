/**
 * @module The processor's states read as ours (docs/payments.md, "Reconciliation"): a payment intent's, a refund's and
 * a dispute's, as the comparison, the repairs and the ledger check all read them.
 */
import type { PaymentStatus, RefundStatus } from '../../generated/prisma/enums.ts'
import type { ProcessorDispute, ProcessorIntent } from './processor-snapshot.ts'

/** A payment intent's status, as our payment's. */
export function intentStatusAsOurs(intent: Pick<ProcessorIntent, 'status' | 'lastPaymentError'>): PaymentStatus {
  if (intent.status === 'succeeded') return 'SUCCEEDED'
  if (intent.status === 'canceled') return 'CANCELED'
  if (intent.status === 'requires_payment_method' && intent.lastPaymentError) return 'FAILED'
  return 'PENDING'
}

/** A processor refund's status, as ours. */
export function refundStatusAsOurs(status: string): RefundStatus {
  if (status === 'succeeded') return 'SUCCEEDED'
  if (status === 'failed' || status === 'canceled') return 'FAILED'
  return 'PENDING'
}

/**
 * A dispute's status, as ours: decided (won, lost), closed without a decision against the centre (an inquiry's
 * `warning_closed`, `charge_refunded`), or still open (every other status).
 */
export function disputeStatusAsOurs(status: string): 'OPEN' | 'WON' | 'LOST' | 'CLOSED' {
  if (status === 'won') return 'WON'
  if (status === 'lost') return 'LOST'
  if (status === 'warning_closed' || status === 'charge_refunded') return 'CLOSED'
  return 'OPEN'
}

/** A processor's dispute's state, as ours: a lost one whose funds the processor gave back is the centre's again. */
export const processorDisputeAsOurs = (dispute: Pick<ProcessorDispute, 'status' | 'fundsReinstated'>) =>
  dispute.fundsReinstated === true ? 'WON' : disputeStatusAsOurs(dispute.status)

/**
 * Whether the processor withdrew a dispute's funds: as it says, or else by its status (an inquiry, `warning_*`,
 * withdraws none; every other status follows a withdrawal).
 */
export const processorDisputeWithdrawn = (dispute: Pick<ProcessorDispute, 'status' | 'fundsWithdrawn'>) =>
  dispute.fundsWithdrawn ?? !dispute.status.startsWith('warning_')
