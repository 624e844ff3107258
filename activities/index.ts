/** @module All activities, composed from the per-area factories with the worker's dependencies. */
import type { Db } from '../infra/db.ts'
import { createAssessmentActivities } from './assessment-activities.ts'
import { createBookingActivities } from './booking-activities.ts'

export interface ActivityDeps {
  db: Db
}

/** Builds every activity the worker registers. */
export function createActivities(deps: ActivityDeps) {
  return {
    ...createBookingActivities(deps),
    ...createAssessmentActivities(deps),
  }
}
