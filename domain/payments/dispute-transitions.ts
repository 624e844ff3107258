/**
 * @module The dispute state machine (docs/payments.md, "Disputes"), pure so its rules are tested on their own
 * (test/unit/domain/dispute-transitions.test.ts).
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
 * Only LOST counts as money charged back: every transition moves a payment's `amountLost` and an order's
 * `amountChargedBack` by exactly {@link chargedBackDelta}.
 */
import type { PaymentDisputeStatus } from '../../generated/prisma/enums.ts'

/** What an event reporting `reported` does to a dispute we hold as `current` (null: none yet). */
export type DisputeStep = 'apply' | 'stale' | 'ask'

/**
 * @param current - the dispute's status as we hold it, or null when the payment has no dispute yet
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
