/**
 * @module Scheduling an assessment (assessment-store.ts says what the changes of an assessment share).
 */
import type { UnitOfWork } from '../../infra/unit-of-work.ts'
import { validationError } from '../errors.ts'
import type { AssessmentFieldsInput } from './assessment-schema.ts'
import {
  assessmentReferenceErrors,
  insertAssessment,
  type AssessmentDeps,
  type AssessmentWithNext,
} from './assessment-store.ts'

/**
 * Schedules an assessment; with a due date, its reminder workflow starts after commit.
 * @throws AppError `validation_error` for an unknown child or provider
 */
export async function createAssessment(
  deps: Pick<AssessmentDeps, 'reminders'>,
  uow: UnitOfWork,
  input: AssessmentFieldsInput
): Promise<AssessmentWithNext> {
  const errors = await assessmentReferenceErrors(uow, input)
  if (errors.length > 0) throw validationError(errors)
  return insertAssessment(deps, uow, input)
}
