/**
 * @module The lead lifecycle's refusals as the domain's error: the table of moves is the ground floor's
 * (common/leads/lead-state.ts), which the workflow runs too and so throws nothing of the domain's.
 */
import { moveRefusal, type LeadStatus } from '../../common/leads/lead-state.ts'
import { invalidStateTransition } from '../errors.ts'

/**
 * Refuses a move the lifecycle does not allow.
 * @throws AppError `invalid_state_transition` naming both statuses
 */
export function assertMove(from: LeadStatus, to: LeadStatus): void {
  const refusal = moveRefusal(from, to)
  if (refusal) throw invalidStateTransition(refusal)
}
