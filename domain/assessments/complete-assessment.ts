/**
 * @module Completing an assessment with its scores: `assessment.completed`, the reminders ended and, when the assessment
 * has a re-assessment cadence, the next assessment (due `cadence` days after the completion date, in the same
 * transaction, so a completed assessment with a cadence always has its successor). assessment-store.ts says what the
 * changes of an assessment share.
 */
import type { UnitOfWork } from '../../infra/unit-of-work.ts'
import { invalidStateTransition, validationError } from '../errors.ts'
import { recordEvent } from '../events/record-event.ts'
import { isOpen } from './assessment-rules.ts'
import type { AssessmentCompletionInput } from './assessment-schema.ts'
import {
  insertAssessment,
  lockAssessment,
  withNext,
  type AssessmentDeps,
  type AssessmentWithNext,
} from './assessment-store.ts'
import { addDays } from '../../common/time/calendar.ts'
import { localDateForAssessment } from './reminder-steps.ts'

/**
 * Records the completion with its scores, emits `assessment.completed`, ends the reminders and, with a cadence,
 * creates the re-assessment.
 * @throws AppError `invalid_state_transition` (409) unless the assessment is open; `validation_error` for a
 *   completion time in the future
 */
export async function completeAssessment(
  deps: AssessmentDeps,
  uow: UnitOfWork,
  id: string,
  input: AssessmentCompletionInput
): Promise<AssessmentWithNext> {
  const { reminders, clock } = deps
  const current = await lockAssessment(uow, id)
  // Read the clock once the row is ours: a reminder step that held the lock read its clock before taking it, so
  // its notification and `assessment.due` are never stamped after this completion (they committed before it).
  const now = clock()
  if (!isOpen(current.status)) throw invalidStateTransition(`A ${current.status} assessment cannot be completed.`)
  const completedAt = input.completedAt ? new Date(input.completedAt) : now
  if (completedAt.getTime() > now.getTime() + 60_000) {
    throw validationError([
      {
        path: 'completedAt',
        code: 'in_future',
        message: 'An assessment is completed when it was administered, not later.',
      },
    ])
  }
  const completed = await uow.tx.assessment.update({
    where: { id: current.id },
    data: { status: 'COMPLETED', completedAt, scores: input.scores },
    include: withNext,
  })
  await recordEvent(
    uow,
    'assessment.completed',
    {
      assessmentId: completed.id,
      childId: completed.childId,
      providerId: completed.providerId,
      instrument: completed.instrument,
      completedAt: completedAt.toISOString(),
    },
    { createdAt: now }
  )
  await reminders.assessmentChanged(uow, completed)
  if (!completed.reassessmentCadenceDays) return completed

  const completedOn = await localDateForAssessment(uow, completed, completedAt)
  const successor = await insertAssessment(
    deps,
    uow,
    {
      childId: completed.childId,
      providerId: completed.providerId ?? undefined,
      instrument: completed.instrument,
      dueDate: addDays(completedOn, completed.reassessmentCadenceDays),
      reassessmentCadenceDays: completed.reassessmentCadenceDays,
    },
    completed.id
  )
  return { ...completed, next: { id: successor.id } }
}
