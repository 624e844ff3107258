/**
 * @module Assessments, as the API drives them: create, read, list, change by JSON merge patch, cancel, complete with
 * scores, and recall a completed one. One function per change, each in its own file (assessment-store.ts says what
 * they share); this service gives them their dependencies.
 */
import { cancelAssessment } from './cancel-assessment.ts'
import { completeAssessment } from './complete-assessment.ts'
import { createAssessment } from './create-assessment.ts'
import { patchAssessment } from './patch-assessment.ts'
import { recallAssessment } from './recall-assessment.ts'
import { getAssessment, listAssessmentNotifications, listAssessments, type AssessmentDeps } from './assessment-store.ts'

type Rest<F> = F extends (deps: never, ...rest: infer R) => unknown ? R : never

/** Creates the assessment service. */
export function createAssessmentService(deps: AssessmentDeps) {
  return {
    /** @see createAssessment */
    create: (...args: Rest<typeof createAssessment>) => createAssessment(deps, ...args),
    get: getAssessment,
    list: listAssessments,
    /** @see patchAssessment */
    patch: (...args: Rest<typeof patchAssessment>) => patchAssessment(deps, ...args),
    /** @see cancelAssessment */
    cancel: (...args: Rest<typeof cancelAssessment>) => cancelAssessment(deps, ...args),
    /** @see completeAssessment */
    complete: (...args: Rest<typeof completeAssessment>) => completeAssessment(deps, ...args),
    listNotifications: listAssessmentNotifications,
    /** @see recallAssessment */
    recall: (...args: Rest<typeof recallAssessment>) => recallAssessment(deps, ...args),
  }
}

export type AssessmentService = ReturnType<typeof createAssessmentService>
