/**
 * @module Custom field definitions: each location defines the extra fields its client records carry (spec row 4,
 * `custom_fields`). Definitions evolve without breaking stored records: key and type are fixed, a key is never
 * reused, and archiving (DELETE) keeps the definition so old values stay readable (docs/care-records.md).
 */
import type { CustomFieldDefinition } from '../../generated/prisma/client.ts'
import { isUniqueViolation } from '../../infra/db.ts'
import type { UnitOfWork } from '../../infra/unit-of-work.ts'
import { conflict, notFound, validationError, type FieldError } from '../errors.ts'
import { newId } from '../ids.ts'
import { keysetOrderBy, keysetWhere, parseList, toSortedPage, type SortParam } from '../listing.ts'
import { resolveLocation } from '../locations/resolve-location.ts'
import { patchResource, withoutNulls, type JsonObject } from '../merge-patch.ts'
import {
  CustomFieldDefinitionFields,
  type CustomFieldDefinitionInput,
  type CustomFieldDefinitionRule,
  type CustomFieldType,
} from './custom-field-schema.ts'

export const DEFINITION_SORTS = ['position', 'key', 'createdAt'] as const

export interface DefinitionListQuery {
  limit: number
  cursor?: string
  sort: SortParam<(typeof DEFINITION_SORTS)[number]>
  locationId?: string
  archived?: boolean
}

const duplicateKey = (key: string) =>
  conflict(
    `This location already has a custom field "${key}" (perhaps archived): keys are never reused, so stored values ` +
      'keep their meaning. Choose another key.'
  )

/** A definition row as the validator sees it. */
export const toRule = (row: CustomFieldDefinition): CustomFieldDefinitionRule => ({
  key: row.key,
  label: row.label,
  type: row.type as CustomFieldType,
  required: row.required,
  options: row.options,
  archived: row.archivedAt !== null,
})

/** Every definition of a location, archived ones included, for validating values. */
export async function definitionRulesOf({ tx, tenantId }: UnitOfWork, locationId: string) {
  const rows = await tx.customFieldDefinition.findMany({
    where: { tenantId, locationId },
    orderBy: [{ position: 'asc' }, { key: 'asc' }],
  })
  return rows.map(toRule)
}

/**
 * Defines a custom field at a location (the named one or the tenant's only one).
 * @throws AppError `conflict` when the key exists at that location, archived or not
 */
export async function createDefinition(uow: UnitOfWork, input: CustomFieldDefinitionInput & { locationId?: string }) {
  const location = await resolveLocation(uow, input.locationId)
  const existing = await uow.tx.customFieldDefinition.findFirst({
    where: { tenantId: uow.tenantId, locationId: location.id, key: input.key },
    select: { id: true },
  })
  if (existing) throw duplicateKey(input.key)
  try {
    return await uow.tx.customFieldDefinition.create({
      data: {
        id: newId('customFieldDefinition'),
        tenantId: uow.tenantId,
        locationId: location.id,
        key: input.key,
        label: input.label,
        description: input.description ?? null,
        type: input.type,
        required: input.required,
        options: input.options ?? [],
        position: input.position,
      },
    })
  } catch (error) {
    // Two concurrent creates of one key: the unique index decides.
    if (isUniqueViolation(error)) throw duplicateKey(input.key)
    throw error
  }
}

/** One definition of the unit's tenant. @throws AppError `not_found` */
export async function getDefinition({ tx, tenantId }: UnitOfWork, id: string) {
  const row = await tx.customFieldDefinition.findFirst({ where: { id, tenantId } })
  if (!row) throw notFound('custom field definition', id)
  return row
}

/** A page of the tenant's definitions; archived ones only when asked for (`archived=true`). */
export async function listDefinitions({ tx, tenantId }: UnitOfWork, query: DefinitionListQuery) {
  const list = parseList(query)
  const filters = {
    tenantId,
    archivedAt: query.archived ? { not: null } : null,
    ...(query.locationId ? { locationId: query.locationId } : {}),
  }
  const rows = await tx.customFieldDefinition.findMany({
    where: { AND: [filters, keysetWhere(list)] },
    orderBy: keysetOrderBy(list),
    take: list.limit + 1,
  })
  return toSortedPage(rows, list)
}

/**
 * Locks the definition's row until the transaction ends, so a read-modify-write (a merge patch, an archive) never works on
 * a stale copy: concurrent changes to one definition apply one after the other instead of losing each other's members.
 */
async function lockDefinition({ tx, tenantId }: UnitOfWork, id: string) {
  await tx.$queryRaw`SELECT id FROM custom_field_definitions WHERE id = ${id} AND tenant_id = ${tenantId} FOR UPDATE`
}

/** The writable fields of a row, as a merge-patch target. */
const writableOf = (row: CustomFieldDefinition): JsonObject =>
  withoutNulls({
    key: row.key,
    label: row.label,
    description: row.description,
    type: row.type,
    required: row.required,
    options: row.type === 'SELECT' ? row.options : null,
    position: row.position,
  })

/**
 * Changes a definition by JSON merge patch: label, description, required, options (SELECT) and position. Making a
 * field required, or dropping an option, leaves stored values as they are (see validate-custom-fields.ts).
 * @throws AppError `validation_error` (`immutable`) for a change of key or type
 */
export async function patchDefinition(uow: UnitOfWork, id: string, patch: JsonObject) {
  await lockDefinition(uow, id)
  const row = await getDefinition(uow, id)
  const immutable: FieldError[] = (['key', 'type'] as const)
    .filter((field) => field in patch && patch[field] !== row[field])
    .map((field) => ({
      path: field,
      code: 'immutable',
      message: `A custom field's ${field} never changes, so stored values keep their meaning: archive it and define a new one.`,
    }))
  if (immutable.length) throw validationError(immutable)
  const next = patchResource(CustomFieldDefinitionFields, writableOf(row), patch)
  return uow.tx.customFieldDefinition.update({
    where: { id: row.id },
    data: {
      label: next.label,
      description: next.description ?? null,
      required: next.required,
      options: next.options ?? [],
      position: next.position,
    },
  })
}

/**
 * Archives a definition: it accepts no new values and requires nothing, while stored values stay readable. Archiving
 * an archived definition changes nothing.
 */
export async function archiveDefinition(uow: UnitOfWork, id: string, now: Date) {
  await lockDefinition(uow, id)
  const row = await getDefinition(uow, id)
  if (row.archivedAt) return row
  return uow.tx.customFieldDefinition.update({ where: { id: row.id }, data: { archivedAt: now } })
}
