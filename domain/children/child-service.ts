/**
 * @module Children: the people therapy is for. Enough for booking now; guardians, diagnoses, goals and
 * early-intervention enrolment come with the care-records work.
 */
import type { UnitOfWork } from '../../infra/unit-of-work.ts'
import { notFound, validationError } from '../errors.ts'
import { newId } from '../ids.ts'
import { resolveLocation } from '../locations/resolve-location.ts'

export interface CreateChildInput {
  firstName: string
  lastName: string
  /** Calendar date, YYYY-MM-DD. */
  dateOfBirth: string
  locationId?: string
}

/**
 * Registers a child.
 * @throws AppError `validation_error` for a date of birth in the future
 */
export async function createChild(uow: UnitOfWork, input: CreateChildInput, today: Date) {
  const dateOfBirth = new Date(`${input.dateOfBirth}T00:00:00.000Z`)
  if (dateOfBirth.getTime() > today.getTime()) {
    throw validationError([{ path: 'dateOfBirth', code: 'in_future', message: 'The date of birth is in the future.' }])
  }
  const location = await resolveLocation(uow, input.locationId)
  return uow.tx.child.create({
    data: {
      id: newId('child'),
      tenantId: uow.tenantId,
      locationId: location.id,
      firstName: input.firstName,
      lastName: input.lastName,
      dateOfBirth,
    },
  })
}

/** One child of the unit's tenant. @throws AppError `not_found` */
export async function getChild({ tx, tenantId }: UnitOfWork, id: string) {
  const child = await tx.child.findFirst({ where: { id, tenantId } })
  if (!child) throw notFound('child', id)
  return child
}
