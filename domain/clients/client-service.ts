/**
 * @module Clients: parents, guardians and payers, with the custom fields their location defines (spec row 4).
 * A client is archived rather than deleted (DELETE sets `archivedAt`): appointments, invoices and the children's
 * clinical history name them, and that history must not lose its people.
 */
import { Prisma, type Client } from '../../generated/prisma/client.ts'
import type { UnitOfWork } from '../../infra/unit-of-work.ts'
import { notFound, validationError, type FieldError } from '../errors.ts'
import { newId } from '../ids.ts'
import { keysetOrderBy, keysetWhere, parseList, toSortedPage, type SortParam } from '../listing.ts'
import { resolveLocation } from '../locations/resolve-location.ts'
import { patchFields, withoutNulls, type JsonObject } from '../merge-patch.ts'
import { definitionRulesOf } from '../custom-fields/custom-field-definition-service.ts'
import { validateCustomFields, type CustomFieldValues } from '../custom-fields/validate-custom-fields.ts'
import { ClientFields, type ClientFieldsInput, type ClientRole } from './client-schema.ts'

export const CLIENT_SORTS = ['createdAt', 'lastName'] as const

export interface ClientListQuery {
  limit: number
  cursor?: string
  sort: SortParam<(typeof CLIENT_SORTS)[number]>
  locationId?: string
  email?: string
  q?: string
  role?: ClientRole
  childId?: string
  archived?: boolean
}

export type CreateClientInput = ClientFieldsInput & { custom_fields?: Record<string, unknown> }

/** A PATCH body: a merge patch of the client's writable fields. */
export type ClientPatch = JsonObject & { custom_fields?: Record<string, unknown> }

/** Stored custom field values (a JSON object written only by this module). */
export const customFieldsOf = (client: Client) => client.customFields as CustomFieldValues

async function checkCustomFields(
  uow: UnitOfWork,
  locationId: string,
  stored: CustomFieldValues,
  patch: Record<string, unknown>,
  mode: 'update' | 'full'
) {
  const definitions = await definitionRulesOf(uow, locationId)
  return validateCustomFields({ definitions, stored, patch, mode })
}

/** The columns of a client's writable fields (custom fields aside). */
const columnsOf = (fields: ClientFieldsInput) => ({
  firstName: fields.firstName,
  lastName: fields.lastName,
  email: fields.email ?? null,
  phone: fields.phone ?? null,
  preferredLanguage: fields.preferredLanguage ?? null,
  address: fields.address && Object.keys(fields.address).length > 0 ? fields.address : Prisma.DbNull,
  roles: fields.roles,
})

/**
 * Creates a client at the named location (or the tenant's only one) with values for that location's custom fields.
 * @throws AppError `validation_error` with one `custom_fields.<key>` error per unknown, invalid or missing field
 */
export async function createClient(uow: UnitOfWork, input: CreateClientInput) {
  const location = await resolveLocation(uow, input.locationId)
  const custom = await checkCustomFields(uow, location.id, {}, input.custom_fields ?? {}, 'full')
  if (!custom.ok) throw validationError(custom.errors)
  return uow.tx.client.create({
    data: {
      id: newId('client'),
      tenantId: uow.tenantId,
      locationId: location.id,
      ...columnsOf(input),
      customFields: custom.values,
    },
  })
}

/** One client of the unit's tenant, archived or not. @throws AppError `not_found` */
export async function getClient({ tx, tenantId }: UnitOfWork, id: string) {
  const client = await tx.client.findFirst({ where: { id, tenantId } })
  if (!client) throw notFound('client', id)
  return client
}

/** Case-insensitive name search: every word of `q` must start or appear in the first or last name. */
function nameSearch(q: string): Prisma.ClientWhereInput[] {
  return q
    .split(/\s+/)
    .filter(Boolean)
    .slice(0, 5)
    .map((word) => ({
      OR: [
        { firstName: { contains: word, mode: 'insensitive' as const } },
        { lastName: { contains: word, mode: 'insensitive' as const } },
      ],
    }))
}

/** A page of the tenant's clients; archived ones only when asked for (`archived=true`). */
export async function listClients({ tx, tenantId }: UnitOfWork, query: ClientListQuery) {
  const list = parseList(query)
  const filters: Prisma.ClientWhereInput[] = [
    { tenantId, archivedAt: query.archived ? { not: null } : null },
    ...(query.locationId ? [{ locationId: query.locationId }] : []),
    ...(query.email ? [{ email: query.email.toLowerCase() }] : []),
    ...(query.role ? [{ roles: { has: query.role } }] : []),
    ...(query.childId ? [{ childLinks: { some: { childId: query.childId } } }] : []),
    ...(query.q ? nameSearch(query.q) : []),
  ]
  const rows = await tx.client.findMany({
    where: { AND: [...filters, keysetWhere(list) as Prisma.ClientWhereInput] },
    orderBy: keysetOrderBy(list),
    take: list.limit + 1,
  })
  return toSortedPage(rows, list)
}

/**
 * Locks the client's row until the transaction ends, so a read-modify-write (a merge patch, an archive) never works on
 * a stale copy: concurrent changes to one client apply one after the other instead of losing each other's members.
 */
async function lockClient({ tx, tenantId }: UnitOfWork, id: string) {
  await tx.$queryRaw`SELECT id FROM clients WHERE id = ${id} AND tenant_id = ${tenantId} FOR UPDATE`
}

/** The writable fields of a row, as a merge-patch target. */
const writableOf = (client: Client): JsonObject =>
  withoutNulls({
    firstName: client.firstName,
    lastName: client.lastName,
    email: client.email,
    phone: client.phone,
    preferredLanguage: client.preferredLanguage,
    address: client.address,
    roles: client.roles,
    locationId: client.locationId,
  })

/**
 * Changes a client by JSON merge patch. Custom fields are checked only when the patch names `custom_fields`: then
 * the keys it names must fit their definitions and every field required now must be filled. Moving the client to
 * another location checks all its values against that location's definitions.
 * @throws AppError `validation_error` listing every offending field, custom or not
 */
export async function patchClient(uow: UnitOfWork, id: string, patch: ClientPatch) {
  await lockClient(uow, id)
  const client = await getClient(uow, id)
  const { custom_fields: customPatch, ...fieldsPatch } = patch
  const fields = patchFields(ClientFields, writableOf(client), fieldsPatch)
  const errors: FieldError[] = fields.ok ? [] : [...fields.errors]

  let locationId = client.locationId
  const requested = fields.ok ? fields.data.locationId : undefined
  if (requested && requested !== client.locationId) {
    locationId = (await resolveLocation(uow, requested)).id
  }
  const relocated = locationId !== client.locationId
  let customFields = customFieldsOf(client)
  if (customPatch !== undefined || relocated) {
    const custom = await checkCustomFields(
      uow,
      locationId,
      customFields,
      customPatch ?? {},
      relocated ? 'full' : 'update'
    )
    if (custom.ok) customFields = custom.values
    else errors.push(...custom.errors)
  }
  if (!fields.ok || errors.length > 0) throw validationError(errors)

  return uow.tx.client.update({
    where: { id: client.id },
    data: { ...columnsOf(fields.data), locationId, customFields },
  })
}

/** Archives a client (DELETE): kept for the history that names them, left out of lists by default. Idempotent. */
export async function archiveClient(uow: UnitOfWork, id: string, now: Date) {
  await lockClient(uow, id)
  const client = await getClient(uow, id)
  if (client.archivedAt) return client
  return uow.tx.client.update({ where: { id: client.id }, data: { archivedAt: now } })
}
