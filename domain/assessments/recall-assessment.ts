/**
 * @module Recalling a completed assessment that has no re-assessment yet (assessment-store.ts says what the changes of an
 * assessment share).
 */
import type { UnitOfWork } from '../../infra/unit-of-work.ts'
import { getAssessment, insertAssessment, lockAssessment, type AssessmentDeps } from './assessment-store.ts'

/**
 * Recalls a completed assessment that has no re-assessment yet (domain/ai/assessment-recall/assessment-recall.ts): creates
 * it due `dueDate`, with its reminder workflow, under the row lock of the completed one. Idempotent: when the
 * re-assessment exists (previous_assessment_id is unique), that one is returned with `created: false`.
 * @throws AppError `not_found`
 */
export async function recallAssessment(
  deps: Pick<AssessmentDeps, 'reminders'>,
  uow: UnitOfWork,
  previousId: string,
  dueDate: string,
  cadenceDays: number
) {
  const previous = await lockAssessment(uow, previousId)
  if (previous.next) return { created: false, assessment: await getAssessment(uow, previous.next.id) }
  const assessment = await insertAssessment(
    deps,
    uow,
    {
      childId: previous.childId,
      providerId: previous.providerId ?? undefined,
      instrument: previous.instrument,
      dueDate,
      reassessmentCadenceDays: cadenceDays,
    },
    previous.id
  )
  return { created: true, assessment }
}
