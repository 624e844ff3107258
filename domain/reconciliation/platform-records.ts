/**
 * @module Our side of the reconciliation (docs/payments.md, "Reconciliation"): the tenant's payments through the
 * processor (CARD_ONLINE), their disputes (a row each), the refunds of those payments, and the sends of payout
 * transfers, as the comparison reads them.
 * What is loaded: every record created or changed in the window, every record the processor's objects name (by
 * their id or by the id in their metadata, wherever it was created) or says changed in the window, and every record
 * still open, kept under watch until it is final (issue 46): a pending refund, an open dispute, a transfer send still
 * pending.
 */
import type { PaymentDisputeStatus, PaymentStatus, RefundStatus } from '../../generated/prisma/enums.ts'
import type { UnitOfWork } from '../../infra/unit-of-work.ts'
import type { CreatedWindow, ProcessorReferences, ProcessorSnapshot } from './processor-snapshot.ts'

export interface OurPayment {
  id: string
  orderId: string
  amount: number
  currency: string
  status: PaymentStatus
  processorReference: string | null
  unapplied: boolean
  createdAt: Date
  /** The processor's processing fee on it as we recorded it (issue 58). */
  processorFee: number
  /** What its charge moved on a balance kept in another currency, as we recorded it (issue 58); null: none. */
  settledCurrency: string | null
  settledAmount: number | null
  settledFee: number | null
}

/** One of our disputes (a row of `payment_disputes`), with what the comparison needs of its payment. */
export interface OurDispute {
  id: string
  paymentId: string
  /** The disputed payment's intent at the processor: the charge whose disputes are listed. */
  intentId: string | null
  /** The processor's dispute id. */
  processorReference: string
  amount: number
  /** The payment's currency (a dispute is in the currency of the charge it disputes). */
  currency: string
  status: PaymentDisputeStatus
  /** We recorded the processor withdrawing its funds (`fundsWithdrawnAt`): an inquiry's are not, until it escalates. */
  fundsWithdrawn: boolean
  createdAt: Date
}

export interface OurRefund {
  id: string
  paymentId: string
  amount: number
  currency: string
  status: RefundStatus
  processorReference: string | null
  createdAt: Date
  /** What it moved on a balance kept in another currency, as we recorded it (issue 58); null: not recorded. */
  settledCurrency: string | null
  settledAmount: number | null
}

/** One send of a payout transfer: an attempt row, or a transfer paid before attempts were recorded. */
export interface OurTransfer {
  /** The attempt's id, or the transfer's for a transfer without attempt rows. */
  id: string
  transferId: string
  amount: number
  amountReversed: number
  currency: string
  /** PAID once the processor made it (whatever was reversed since); PENDING before; FAILED when refused. */
  status: 'PENDING' | 'PAID' | 'FAILED'
  processorReference: string | null
  createdAt: Date
}

export interface PlatformRecords {
  payments: OurPayment[]
  disputes: OurDispute[]
  refunds: OurRefund[]
  transfers: OurTransfer[]
}

const unique = (values: Array<string | null>) => [...new Set(values.filter((v): v is string => v !== null))]

const NOTHING_CHANGED: ProcessorReferences = { intents: [], refunds: [], disputes: [], transfers: [] }

/**
 * Loads our records for a comparison with `theirs`.
 * @param processor - the processor's name: its payments (CARD_ONLINE) and their refunds are compared
 * @param window - records created or changed in it are compared whether or not the processor shows them
 * @param changed - the processor's objects that changed in the window (its events): our records of them are compared
 */
export async function loadPlatformRecords(
  uow: UnitOfWork,
  processor: string,
  window: CreatedWindow,
  theirs: ProcessorSnapshot,
  changed: ProcessorReferences = NOTHING_CHANGED
): Promise<PlatformRecords> {
  const { tx, tenantId } = uow
  const createdAt = { gte: window.from, lt: window.to }
  const intentIds = unique([
    ...theirs.intents.map((i) => i.id),
    ...theirs.refunds.map((r) => r.paymentIntentId),
    ...theirs.disputes.map((d) => d.paymentIntentId),
    ...changed.intents,
  ])
  const paymentIds = unique([
    ...theirs.intents.map((i) => i.paymentId),
    ...theirs.refunds.map((r) => r.paymentId),
    ...theirs.disputes.map((d) => d.paymentId),
  ])
  // Disputes created or changed in the window, open until decided, or named by the processor's disputes.
  const disputesCompared = {
    OR: [
      { createdAt },
      { updatedAt: createdAt },
      { status: 'OPEN' as const },
      { processorReference: { in: [...theirs.disputes.map((d) => d.id), ...changed.disputes] } },
    ],
  }
  const payments = await tx.payment.findMany({
    where: {
      tenantId,
      processor,
      OR: [
        { createdAt },
        { updatedAt: createdAt },
        { id: { in: paymentIds } },
        { processorReference: { in: intentIds } },
        // The payment of each dispute compared (below).
        { disputes: { some: disputesCompared } },
      ],
    },
    select: {
      id: true,
      orderId: true,
      amount: true,
      currency: true,
      status: true,
      processorReference: true,
      unapplied: true,
      createdAt: true,
      processorFee: true,
      settledCurrency: true,
      settledAmount: true,
      settledFee: true,
    },
    orderBy: { id: 'asc' },
  })
  const disputes = await tx.paymentDispute.findMany({
    where: { tenantId, payment: { processor }, ...disputesCompared },
    include: { payment: { select: { processorReference: true, currency: true } } },
    orderBy: { id: 'asc' },
  })
  const refunds = await tx.refund.findMany({
    where: {
      tenantId,
      // Every refund of a payment the processor took goes back through it, whatever its `method` says.
      payment: { processor },
      OR: [
        { createdAt },
        { succeededAt: createdAt },
        { failedAt: createdAt },
        // Open until final: a pending refund is compared every day until it succeeds or fails.
        { status: 'PENDING' },
        { id: { in: unique(theirs.refunds.map((r) => r.refundId)) } },
        { processorReference: { in: [...theirs.refunds.map((r) => r.id), ...changed.refunds] } },
      ],
    },
    select: {
      id: true,
      paymentId: true,
      amount: true,
      currency: true,
      status: true,
      processorReference: true,
      createdAt: true,
      settledCurrency: true,
      settledAmount: true,
    },
    orderBy: { id: 'asc' },
  })
  return {
    payments,
    disputes: disputes.map(({ payment, ...d }) => ({
      id: d.id,
      paymentId: d.paymentId,
      intentId: payment.processorReference,
      processorReference: d.processorReference,
      amount: d.amount,
      currency: payment.currency,
      status: d.status,
      fundsWithdrawn: d.fundsWithdrawnAt !== null,
      createdAt: d.createdAt,
    })),
    refunds,
    transfers: await loadTransferSends(uow, { window, theirs, changed }),
  }
}

/**
 * The sends of payout transfers: attempts, and transfers made before attempts were recorded (one send each).
 * @param scope - those created in the window or named by the processor's transfers; all of the tenant's without it
 */
export async function loadTransferSends(
  { tx, tenantId }: UnitOfWork,
  scope?: { window: CreatedWindow; theirs: ProcessorSnapshot; changed?: ProcessorReferences }
): Promise<OurTransfer[]> {
  const references = [...(scope?.theirs.transfers.map((t) => t.id) ?? []), ...(scope?.changed?.transfers ?? [])]
  const transferIds = unique(scope?.theirs.transfers.map((t) => t.transferId) ?? [])
  const createdAt = scope && { gte: scope.window.from, lt: scope.window.to }
  const attempts = await tx.payoutTransferAttempt.findMany({
    where: {
      tenantId,
      ...(createdAt && {
        OR: [
          { createdAt },
          { updatedAt: createdAt },
          // Open until final: a send still pending is compared every day.
          { status: 'PENDING' },
          { processorReference: { in: references } },
          { transferId: { in: transferIds } },
        ],
      }),
    },
    orderBy: { id: 'asc' },
  })
  const transfers = await tx.payoutTransfer.findMany({
    where: {
      tenantId,
      processorReference: { not: null },
      ...(createdAt && {
        OR: [{ createdAt }, { processorReference: { in: references } }, { id: { in: transferIds } }],
      }),
    },
    orderBy: { id: 'asc' },
  })
  // A transfer whose sends are recorded as attempts is compared through them.
  const withAttempts = new Set(
    (
      await tx.payoutTransferAttempt.findMany({
        where: { tenantId, transferId: { in: transfers.map((t) => t.id) } },
        select: { transferId: true },
        distinct: ['transferId'],
      })
    ).map((a) => a.transferId)
  )
  return [
    // What the processor holds of a converted send is in the balance's currency (issue 78).
    ...attempts.map((a): OurTransfer => ({
      id: a.id,
      transferId: a.transferId,
      amount: a.sentAmount ?? a.amount,
      amountReversed: a.sentAmount === null ? a.amountReversed : a.sentReversed,
      currency: a.sentCurrency ?? a.currency,
      status: a.status,
      processorReference: a.processorReference,
      createdAt: a.createdAt,
    })),
    ...transfers
      .filter((t) => !withAttempts.has(t.id))
      .map((t): OurTransfer => ({
        id: t.id,
        transferId: t.id,
        amount: t.amount,
        // Before amounts reversed were recorded, REVERSED meant all of it.
        amountReversed: t.status === 'REVERSED' && t.amountReversed === 0 ? t.amount : t.amountReversed,
        currency: t.currency,
        status:
          t.status === 'FAILED' ? 'FAILED' : t.status === 'PENDING' || t.status === 'BLOCKED' ? 'PENDING' : 'PAID',
        processorReference: t.processorReference,
        createdAt: t.createdAt,
      })),
  ]
}

/**
 * The processor's ids of the tenant's connected accounts (Stripe `acct_...`), whatever their status: a restricted
 * account still received what was sent before. Its transfers are listed by these (issue 76).
 * @param processor - the processor's name, as the accounts record it
 */
export async function loadConnectedAccounts(uow: UnitOfWork, processor: string): Promise<string[]> {
  const accounts = await uow.tx.providerPayoutAccount.findMany({
    where: { tenantId: uow.tenantId, processor },
    select: { accountId: true },
    orderBy: { accountId: 'asc' },
  })
  return accounts.map((a) => a.accountId)
}

/**
 * Which of `intentIds` (the processor's payment intent ids) are the tenant's payments: what decides whether a refund
 * or dispute without our metadata is the tenant's (issue 76).
 */
export async function loadPaymentIntents(
  uow: UnitOfWork,
  processor: string,
  intentIds: string[]
): Promise<Set<string>> {
  if (intentIds.length === 0) return new Set()
  const payments = await uow.tx.payment.findMany({
    where: { tenantId: uow.tenantId, processor, processorReference: { in: [...new Set(intentIds)] } },
    select: { processorReference: true },
  })
  return new Set(payments.map((p) => p.processorReference).filter((id): id is string => id !== null))
}
