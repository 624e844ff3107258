/**
 * @module The dispute state machine (docs/payments.md, "Disputes"), pure so its rules are tested on their own
 * (test/unit/domain/payments/dispute-transitions.test.ts).
 *
 *   OPEN ──lost──► LOST ──funds reinstated (won later)──► WON
 *     ├───won────────────────────────────────────────────►┘
 *     └──closed (an inquiry closed, the charge refunded)──► CLOSED
 *
 * WON and CLOSED are final; LOST is final but for the processor giving the funds back. A processor's `created`
 * counts whole seconds, so two events about one dispute may not be ordered by it: the states order them instead. An
 * event that would move a decided dispute back to OPEN, or a final one anywhere, is older than what we hold and
 * changes nothing; an event that would undo a loss is in doubt (rare at the processor, and money moves with it), so
 * the processor is asked for the dispute as it holds it now and that state is applied, not the event's.
 *
 * Each processor dispute runs this machine on its own row (`payment_disputes`, keyed by the processor's dispute id):
 * a charge disputed again after an inquiry closed starts a second dispute at `null`, never from the first one's
 * CLOSED (issue 58). Only LOST counts as money charged back: every transition moves its dispute's `amountLost` and
 * the order's `amountChargedBack` by exactly {@link chargedBackDelta}.
 *
 * Beside its state, a dispute records when the processor withdrew its funds (`fundsWithdrawnAt`): at once for a
 * chargeback, only on escalation for an inquiry, never for one closed as an inquiry. Settlements hold a provider's
 * share back only from then (reserves). It is written once, by the first event that says so, whatever its state,
 * and never cleared: the money was taken, and what becomes of it is the state's to say.
 */
import type { PaymentDisputeStatus } from '../../generated/prisma/enums.ts'
import type { SettledMoney } from './online-processor-events.ts'

/** What an event reporting `reported` does to a dispute we hold as `current` (null: none yet). */
export type DisputeStep = 'apply' | 'stale' | 'ask'

/**
 * @param current - the dispute's status as we hold it, or null when we hold no dispute with its id yet
 * @param reported - the status an event reports
 * @returns `apply` (move, or the same state with new details), `stale` (older than what we hold: change nothing),
 *   `ask` (in doubt: apply the processor's current state instead)
 */
export function disputeStep(current: PaymentDisputeStatus | null, reported: PaymentDisputeStatus): DisputeStep {
  if (current === null || current === 'OPEN') return 'apply'
  if (current === reported) return 'apply'
  if (current === 'LOST') return reported === 'OPEN' ? 'stale' : 'ask'
  // WON and CLOSED are final: whatever else is reported was said before them.
  return 'stale'
}

/** How much a dispute of `amount` moving from `from` to `to` changes what was charged back (LOST counts). */
export function chargedBackDelta(
  from: PaymentDisputeStatus | null,
  to: PaymentDisputeStatus,
  amountBefore: number,
  amountAfter: number
): number {
  return (to === 'LOST' ? amountAfter : 0) - (from === 'LOST' ? amountBefore : 0)
}

/** A dispute as we hold it (its row), in what an event can change. */
export interface HeldDispute {
  status: PaymentDisputeStatus
  amount: number
  amountLost: number
  fee: number
  lostAt: Date | null
  reinstatedAt: Date | null
  fundsWithdrawnAt: Date | null
  /** What its balance transactions moved on a balance kept in another currency (issue 58); null: none read. */
  settledCurrency: string | null
  settledAmount: number | null
  settledFee: number | null
}

/** What an event says of one dispute: its state, amount and fee as the processor holds them. */
export interface ReportedDispute {
  status: PaymentDisputeStatus
  amount: number
  fee: number
  /** The processor has withdrawn the disputed funds (a chargeback, or an inquiry escalated to one). */
  fundsWithdrawn: boolean
  /** What its balance transactions moved on a balance kept in another currency; unsaid: none, or not read. */
  settled?: SettledMoney
}

/** The instants an event may write on a dispute's row. */
type Instants = 'lostAt' | 'reinstatedAt' | 'fundsWithdrawnAt'
/** The balance's movements, written when the event reads them. */
type Settled = 'settledCurrency' | 'settledAmount' | 'settledFee'

/** What an event writes on a dispute's row: every field, and the instants of a loss, reinstatement or withdrawal. */
export type DisputeWrite = Omit<HeldDispute, Instants | Settled> & Partial<Pick<HeldDispute, Instants | Settled>>

/** The settled columns an event's reading of the balance transactions writes, or none when it read none. */
const settledColumns = (settled: SettledMoney | undefined) =>
  settled && { settledCurrency: settled.currency, settledAmount: settled.amount, settledFee: settled.fee }

/**
 * The fields an event writes on its dispute's row, or null when it changes nothing (older than what we hold, or the
 * same in every field).
 * @param held - the dispute with the event's id as we hold it; null when this is the first word of it
 * @param reported - what the event says (for an event in doubt, what the processor answered: disputeAsHeld)
 * @param now - the instant a loss, a reinstatement or a withdrawal is recorded at: settlements count a chargeback
 *   between the first two and a reserve from the third, so they are written when they happen, never back-dated
 */
export function disputeChange(held: HeldDispute | null, reported: ReportedDispute, now: Date): DisputeWrite | null {
  if (disputeStep(held?.status ?? null, reported.status) === 'stale') return null
  const lost = reported.status === 'LOST'
  const amountLost = lost ? reported.amount : 0
  // Once withdrawn, always: a later event that says otherwise (an older one, or a reinstatement) changes nothing here.
  const withdrawsNow = reported.fundsWithdrawn && !held?.fundsWithdrawnAt
  const settled = settledColumns(reported.settled)
  if (
    held &&
    held.status === reported.status &&
    held.amount === reported.amount &&
    held.amountLost === amountLost &&
    held.fee === reported.fee &&
    !withdrawsNow &&
    (!settled || (Object.keys(settled) as Settled[]).every((column) => held[column] === settled[column]))
  ) {
    return null
  }
  const wasLost = held?.status === 'LOST'
  return {
    status: reported.status,
    amount: reported.amount,
    amountLost,
    fee: reported.fee,
    ...settled,
    ...(lost && !wasLost ? { lostAt: now } : {}),
    ...(wasLost && !lost ? { reinstatedAt: now } : {}),
    ...(withdrawsNow ? { fundsWithdrawnAt: now } : {}),
  }
}
