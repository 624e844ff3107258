/**
 * @module Changing an open assessment by JSON merge patch (assessment-store.ts says what the changes of an assessment
 * share).
 */
import type { UnitOfWork } from '../../infra/unit-of-work.ts'
import { invalidStateTransition, validationError } from '../errors.ts'
import { patchFields, withoutNulls, type JsonObject } from '../merge-patch.ts'
import { isOpen } from './assessment-rules.ts'
import { AssessmentPatchFields } from './assessment-schema.ts'
import {
  assessmentReferenceErrors,
  lockAssessment,
  toDate,
  withNext,
  type AssessmentDeps,
  type AssessmentWithNext,
} from './assessment-store.ts'
import { calendarDateOf } from './reminder-steps.ts'

/**
 * Changes an open assessment by JSON merge patch (provider, instrument, due date, cadence). A new due date puts
 * it back to SCHEDULED and re-plans its reminders.
 * @throws AppError `invalid_state_transition` (409) for a completed or cancelled assessment; `validation_error`
 */
export async function patchAssessment(
  { reminders }: Pick<AssessmentDeps, 'reminders'>,
  uow: UnitOfWork,
  id: string,
  patchBody: JsonObject
): Promise<AssessmentWithNext> {
  const current = await lockAssessment(uow, id)
  if (!isOpen(current.status)) throw invalidStateTransition(`A ${current.status} assessment can no longer be changed.`)
  const writable = withoutNulls({
    providerId: current.providerId,
    instrument: current.instrument,
    dueDate: current.dueDate && calendarDateOf(current.dueDate),
    reassessmentCadenceDays: current.reassessmentCadenceDays,
  })
  const fields = patchFields(AssessmentPatchFields, writable, patchBody)
  if (!fields.ok) throw validationError(fields.errors)
  const next = fields.data
  const errors =
    next.providerId !== current.providerId ? await assessmentReferenceErrors(uow, { providerId: next.providerId }) : []
  if (errors.length > 0) throw validationError(errors)
  const dueDateMoved = (next.dueDate ?? null) !== (current.dueDate ? calendarDateOf(current.dueDate) : null)
  const updated = await uow.tx.assessment.update({
    where: { id: current.id },
    data: {
      providerId: next.providerId ?? null,
      instrument: next.instrument,
      dueDate: next.dueDate ? toDate(next.dueDate) : null,
      reassessmentCadenceDays: next.reassessmentCadenceDays ?? null,
      ...(dueDateMoved ? { status: 'SCHEDULED' as const } : {}),
    },
    include: withNext,
  })
  if (dueDateMoved) await reminders.assessmentChanged(uow, updated)
  return updated
}
