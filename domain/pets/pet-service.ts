/**
 * @module Pets of a client's household and therapy animals. Archived rather than deleted (DELETE sets `archivedAt`),
 * like every care record, so notes that mention an animal keep their context.
 */
import type { Pet, Prisma } from '../../generated/prisma/client.ts'
import type { UnitOfWork } from '../../infra/unit-of-work.ts'
import { notFound, validationError, type FieldError } from '../errors.ts'
import { newId } from '../ids.ts'
import { keysetOrderBy, keysetWhere, parseList, toSortedPage, type SortParam } from '../listing.ts'
import { patchFields, withoutNulls, type JsonObject } from '../merge-patch.ts'
import { PetFields, type PetFieldsInput } from './pet-schema.ts'

export const PET_SORTS = ['createdAt', 'name'] as const

export interface PetListQuery {
  limit: number
  cursor?: string
  sort: SortParam<(typeof PET_SORTS)[number]>
  ownerClientId?: string
  species?: string
  therapyAnimal?: boolean
  archived?: boolean
}

/**
 * Problems with a pet's owner: a client of the tenant, and not an archived one unless they already own the pet.
 */
async function ownerErrors(
  { tx, tenantId }: UnitOfWork,
  ownerClientId: string,
  currentOwner?: string
): Promise<FieldError[]> {
  const owner = await tx.client.findFirst({ where: { id: ownerClientId, tenantId }, select: { archivedAt: true } })
  if (!owner) return [{ path: 'ownerClientId', code: 'not_found', message: 'No client with this id.' }]
  if (owner.archivedAt && ownerClientId !== currentOwner) {
    return [{ path: 'ownerClientId', code: 'archived', message: 'This client is archived and cannot be given a pet.' }]
  }
  return []
}

const columnsOf = (fields: PetFieldsInput) => ({
  ownerClientId: fields.ownerClientId,
  name: fields.name,
  species: fields.species,
  breed: fields.breed ?? null,
  temperament: fields.temperament ?? null,
  notes: fields.notes ?? null,
  therapyAnimal: fields.therapyAnimal,
  certificationRegistry: fields.certification?.registry ?? null,
  certificationNumber: fields.certification?.number ?? null,
  certificationExpiresOn: fields.certification?.expiresOn
    ? new Date(`${fields.certification.expiresOn}T00:00:00.000Z`)
    : null,
})

/** A pet's certification, or undefined when it has none. */
export function certificationOf(pet: Pet) {
  if (pet.certificationRegistry === null) return undefined
  return withoutNulls({
    registry: pet.certificationRegistry,
    number: pet.certificationNumber,
    expiresOn: pet.certificationExpiresOn?.toISOString().slice(0, 10),
  }) as { registry: string; number?: string; expiresOn?: string }
}

/** Records a pet of a client. @throws AppError `validation_error` for an unknown or archived owner */
export async function createPet(uow: UnitOfWork, input: PetFieldsInput) {
  const errors = await ownerErrors(uow, input.ownerClientId)
  if (errors.length > 0) throw validationError(errors)
  return uow.tx.pet.create({ data: { id: newId('pet'), tenantId: uow.tenantId, ...columnsOf(input) } })
}

/** One pet of the unit's tenant, archived or not. @throws AppError `not_found` */
export async function getPet({ tx, tenantId }: UnitOfWork, id: string) {
  const pet = await tx.pet.findFirst({ where: { id, tenantId } })
  if (!pet) throw notFound('pet', id)
  return pet
}

/** A page of the tenant's pets; archived ones only when asked for (`archived=true`). */
export async function listPets({ tx, tenantId }: UnitOfWork, query: PetListQuery) {
  const list = parseList(query)
  const filters: Prisma.PetWhereInput[] = [
    { tenantId, archivedAt: query.archived ? { not: null } : null },
    ...(query.ownerClientId ? [{ ownerClientId: query.ownerClientId }] : []),
    ...(query.species ? [{ species: query.species }] : []),
    ...(query.therapyAnimal === undefined ? [] : [{ therapyAnimal: query.therapyAnimal }]),
  ]
  const rows = await tx.pet.findMany({
    where: { AND: [...filters, keysetWhere(list) as Prisma.PetWhereInput] },
    orderBy: keysetOrderBy(list),
    take: list.limit + 1,
  })
  return toSortedPage(rows, list)
}

/**
 * Locks the pet's row until the transaction ends, so a read-modify-write (a merge patch, an archive) never works on
 * a stale copy: concurrent changes to one pet apply one after the other instead of losing each other's members.
 */
async function lockPet({ tx, tenantId }: UnitOfWork, id: string) {
  await tx.$queryRaw`SELECT id FROM pets WHERE id = ${id} AND tenant_id = ${tenantId} FOR UPDATE`
}

const writableOf = (pet: Pet): JsonObject =>
  withoutNulls({
    ownerClientId: pet.ownerClientId,
    name: pet.name,
    species: pet.species,
    breed: pet.breed,
    temperament: pet.temperament,
    notes: pet.notes,
    therapyAnimal: pet.therapyAnimal,
    certification: certificationOf(pet),
  })

/**
 * Changes a pet by JSON merge patch; `certification` merges member by member and `null` removes it.
 * @throws AppError `validation_error` listing every offending field
 */
export async function patchPet(uow: UnitOfWork, id: string, patch: JsonObject) {
  await lockPet(uow, id)
  const pet = await getPet(uow, id)
  const fields = patchFields(PetFields, writableOf(pet), patch)
  if (!fields.ok) throw validationError(fields.errors)
  const errors =
    fields.data.ownerClientId === pet.ownerClientId
      ? []
      : await ownerErrors(uow, fields.data.ownerClientId, pet.ownerClientId)
  if (errors.length > 0) throw validationError(errors)
  return uow.tx.pet.update({ where: { id: pet.id }, data: columnsOf(fields.data) })
}

/** Archives a pet (DELETE): kept, left out of lists by default. Idempotent. */
export async function archivePet(uow: UnitOfWork, id: string, now: Date) {
  await lockPet(uow, id)
  const pet = await getPet(uow, id)
  if (pet.archivedAt) return pet
  return uow.tx.pet.update({ where: { id: pet.id }, data: { archivedAt: now } })
}
