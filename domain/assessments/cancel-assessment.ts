/**
 * @module Cancelling an open assessment (assessment-store.ts says what the changes of an assessment share).
 */
import type { UnitOfWork } from '../../infra/unit-of-work.ts'
import { invalidStateTransition } from '../errors.ts'
import { lockAssessment, withNext, type AssessmentDeps, type AssessmentWithNext } from './assessment-store.ts'

/**
 * Cancels an open assessment (DELETE): kept, with `cancelledAt`; its reminders stop. Idempotent.
 * @throws AppError `invalid_state_transition` for a completed assessment
 */
export async function cancelAssessment(
  { reminders, clock }: AssessmentDeps,
  uow: UnitOfWork,
  id: string
): Promise<AssessmentWithNext> {
  const current = await lockAssessment(uow, id)
  if (current.status === 'CANCELLED') return current
  if (current.status === 'COMPLETED') throw invalidStateTransition('A COMPLETED assessment cannot be cancelled.')
  const cancelled = await uow.tx.assessment.update({
    where: { id: current.id },
    data: { status: 'CANCELLED', cancelledAt: clock() },
    include: withNext,
  })
  await reminders.assessmentChanged(uow, cancelled)
  return cancelled
}
