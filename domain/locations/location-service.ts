/**
 * @module Locations: the centres (clinic sites) of a tenant, with the policies that govern booking there (buffer,
 * minimum notice, late-cancellation window, reminders, note deadline, currency) and an address. A location that
 * holds records (providers, children, appointments, or anything else that points at it) is never deleted: 409.
 */
import { z } from '@hono/zod-openapi'
import type { Prisma } from '../../generated/prisma/client.ts'
import type { UnitOfWork } from '../../infra/unit-of-work.ts'
import { conflict, notFound, validationError } from '../errors.ts'
import { newId } from '../ids.ts'
import { keysetOrderBy, keysetWhere, parseList, toSortedPage, type SortParam } from '../listing.ts'
import { patchResource, withoutNulls, type JsonObject } from '../merge-patch.ts'
import { isValidTimeZone } from '../time.ts'

const text = (max: number) => z.string().trim().min(1).max(max)
const minutes = (max: number) => z.number().int().min(0).max(max)

/** The writable fields, for create and for the outcome of a PATCH. */
export const LocationFieldsSchema = z.object({
  name: text(200),
  timeZone: z.string().min(1).max(64),
  currency: z
    .string()
    .regex(/^[A-Z]{3}$/, 'An ISO 4217 currency code')
    .optional(),
  bufferMinutes: minutes(240).optional(),
  minimumNoticeMinutes: minutes(60 * 24 * 30).optional(),
  lateCancellationHours: minutes(24 * 14).optional(),
  reminderOffsetsMinutes: z
    .array(minutes(60 * 24 * 30).refine((m) => m > 0, 'Must be positive'))
    .max(10)
    .optional(),
  noteDueHours: minutes(24 * 90).optional(),
  addressLine1: text(200).optional(),
  addressLine2: text(200).optional(),
  city: text(100).optional(),
  region: text(100).optional(),
  postalCode: text(20).optional(),
  country: z
    .string()
    .regex(/^[A-Z]{2}$/, 'An ISO 3166-1 alpha-2 country code')
    .optional(),
})

export type LocationFields = z.infer<typeof LocationFieldsSchema>

function assertTimeZone(timeZone: string) {
  if (!isValidTimeZone(timeZone)) {
    throw validationError([{ path: 'timeZone', code: 'invalid_time_zone', message: 'Not an IANA time zone.' }])
  }
}

/** Absent optional text fields are stored as NULL; absent policies keep (or get) their defaults. */
function columnsOf(fields: LocationFields) {
  return {
    ...fields,
    addressLine1: fields.addressLine1 ?? null,
    addressLine2: fields.addressLine2 ?? null,
    city: fields.city ?? null,
    region: fields.region ?? null,
    postalCode: fields.postalCode ?? null,
    country: fields.country ?? null,
  }
}

const lockLocation = ({ tx, tenantId }: UnitOfWork, id: string) =>
  tx.$queryRaw`SELECT id FROM locations WHERE id = ${id} AND tenant_id = ${tenantId} FOR UPDATE`

/** Creates a location. @throws AppError `validation_error` */
export async function createLocation(uow: UnitOfWork, fields: LocationFields) {
  assertTimeZone(fields.timeZone)
  return uow.tx.location.create({ data: { id: newId('location'), tenantId: uow.tenantId, ...columnsOf(fields) } })
}

/** One location of the unit's tenant. @throws AppError `not_found` */
export async function getLocation({ tx, tenantId }: UnitOfWork, id: string) {
  const location = await tx.location.findFirst({ where: { id, tenantId } })
  if (!location) throw notFound('location', id)
  return location
}

export type LocationRow = Awaited<ReturnType<typeof getLocation>>

/**
 * Applies a JSON merge patch to the writable fields. Policies cannot be removed (null), only changed: every
 * location has a buffer, a notice and the rest. Changing a policy applies to bookings made from now on.
 * @throws AppError `not_found`, `validation_error`
 */
export async function updateLocation(uow: UnitOfWork, id: string, patch: JsonObject) {
  // A merge patch is a read-modify-write: lock the row so concurrent patches apply one after the other.
  await lockLocation(uow, id)
  const current = await getLocation(uow, id)
  const { id: _id, tenantId: _t, createdAt: _c, updatedAt: _u, ...writable } = current
  const fields = patchResource(LocationFieldsSchema, withoutNulls(writable), patch)
  assertTimeZone(fields.timeZone)
  return uow.tx.location.update({ where: { id }, data: columnsOf(fields) })
}

/**
 * Deletes a location that holds no records.
 * @throws AppError `not_found`, `conflict` when providers, children or appointments (or other records) point at it
 */
export async function deleteLocation(uow: UnitOfWork, id: string) {
  const { tx, tenantId } = uow
  await lockLocation(uow, id)
  await getLocation(uow, id)
  const [providers, children, appointments] = await Promise.all([
    tx.providerLocation.count({ where: { tenantId, locationId: id } }),
    tx.child.count({ where: { tenantId, locationId: id } }),
    tx.appointment.count({ where: { tenantId, locationId: id } }),
  ])
  const held = [
    providers && `${providers} provider(s)`,
    children && `${children} child record(s)`,
    appointments && `${appointments} appointment(s)`,
  ].filter(Boolean)
  if (held.length) throw conflict(`The location holds ${held.join(', ')}; it cannot be deleted.`)
  try {
    await tx.location.delete({ where: { id } })
  } catch (error) {
    // Another table's foreign key (prices, clients, custom fields...) still points at it. The request's savepoint
    // is rolled back with the error, so the transaction stays usable.
    if (isForeignKeyViolation(error)) throw conflict('Records still point at this location; it cannot be deleted.')
    throw error
  }
}

function isForeignKeyViolation(error: unknown): boolean {
  const e = error as { code?: string; cause?: { code?: string; originalCode?: string } } | null
  return e?.code === 'P2003' || e?.code === '23503' || e?.cause?.code === '23503' || e?.cause?.originalCode === '23503'
}

export const LOCATION_SORTS = ['createdAt', 'name', 'updatedAt'] as const

export interface ListLocationsQuery {
  limit: number
  cursor?: string
  sort: SortParam<(typeof LOCATION_SORTS)[number]>
  country?: string
  region?: string
}

/** A page of the tenant's locations. */
export async function listLocations({ tx, tenantId }: UnitOfWork, query: ListLocationsQuery) {
  const list = parseList(query)
  const filters: Prisma.LocationWhereInput[] = [{ tenantId }]
  if (query.country) filters.push({ country: query.country })
  if (query.region) filters.push({ region: query.region })
  const rows = await tx.location.findMany({
    where: { AND: [...filters, keysetWhere(list) as Prisma.LocationWhereInput] },
    orderBy: keysetOrderBy(list),
    take: list.limit + 1,
  })
  return toSortedPage(rows, list)
}
