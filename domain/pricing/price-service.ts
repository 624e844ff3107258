/**
 * @module The price list: what the centre sells and for how much (docs/payments.md). A price is tenant-wide or for one
 * location, for every appointment type or one; at most one active price per (location, service, appointment type),
 * held by a unique index on `active_key`, so {@link priceForService} always has one answer. Archiving is final:
 * orders keep pointing at the archived price, but it never prices anything again.
 */
import type { AppointmentType, PriceUnit } from '../../generated/prisma/enums.ts'
import { isUniqueViolation } from '../../infra/db.ts'
import type { UnitOfWork } from '../../infra/unit-of-work.ts'
import type { Discipline } from '../catalogue/disciplines.ts'
import { conflict, invalidStateTransition, notFound, validationError } from '../errors.ts'
import { newId } from '../ids.ts'
import { keysetOrderBy, keysetWhere, parseList, toSortedPage, type SortParam } from '../listing.ts'
import { isCurrency } from './currencies.ts'

export interface CreatePriceInput {
  service: Discipline
  appointmentType?: AppointmentType
  locationId?: string
  description?: string
  amount: number
  currency: string
  unit: PriceUnit
  active?: boolean
}

/** The writable fields of a price (JSON merge patch; null removes the description). */
export interface PricePatch {
  description?: string | null
  amount?: number
  unit?: PriceUnit
  active?: boolean
}

export const PRICE_SORTS = ['createdAt', 'amount', 'updatedAt'] as const
export type PriceSortField = (typeof PRICE_SORTS)[number]

export interface ListPricesQuery {
  limit: number
  cursor?: string
  sort: SortParam<PriceSortField>
  service?: string
  locationId?: string
  appointmentType?: AppointmentType
  currency?: string
  active?: boolean
  archived?: boolean
}

interface PriceKey {
  locationId: string | null
  service: string
  appointmentType: string | null
}

/** The active-price key: one active price per (location or tenant-wide, service, appointment type or any). */
const activeKeyOf = (price: PriceKey) => `${price.locationId ?? '*'}/${price.service}/${price.appointmentType ?? '*'}`

function describeKey(price: PriceKey) {
  const where = price.locationId ? `location ${price.locationId}` : 'the whole tenant'
  const type = price.appointmentType ? `${price.appointmentType} appointments` : 'any appointment type'
  return `${price.service} for ${type} at ${where}`
}

async function assertKeyFree(uow: UnitOfWork, key: PriceKey, exceptId?: string) {
  const existing = await uow.tx.price.findFirst({
    where: { tenantId: uow.tenantId, activeKey: activeKeyOf(key), id: exceptId ? { not: exceptId } : undefined },
    select: { id: true },
  })
  if (existing) {
    throw conflict(
      `An active price already exists for ${describeKey(key)} (${existing.id}); deactivate or archive it first.`
    )
  }
}

/** Runs a write that sets an active key; a concurrent writer that took the key first makes it a 409. */
async function withKey<T>(key: PriceKey, write: () => Promise<T>): Promise<T> {
  try {
    return await write()
  } catch (error) {
    if (isUniqueViolation(error)) throw conflict(`An active price already exists for ${describeKey(key)}.`)
    throw error
  }
}

/**
 * Adds a price to the list.
 * @throws AppError `validation_error` (unknown currency or location, currency other than the location's), `conflict`
 *   (an active price with the same key exists)
 */
export async function createPrice(uow: UnitOfWork, input: CreatePriceInput) {
  const { tx, tenantId } = uow
  if (!isCurrency(input.currency)) {
    throw validationError([{ path: 'currency', code: 'unknown_currency', message: 'Not an ISO 4217 currency code.' }])
  }
  if (input.locationId !== undefined) {
    const location = await tx.location.findFirst({
      where: { id: input.locationId, tenantId },
      select: { currency: true },
    })
    if (!location)
      throw validationError([{ path: 'locationId', code: 'not_found', message: 'No location with this id.' }])
    if (location.currency !== input.currency) {
      throw validationError([
        {
          path: 'currency',
          code: 'currency_mismatch',
          message: `This location bills in ${location.currency}; its prices must be in ${location.currency}.`,
        },
      ])
    }
  }
  const key: PriceKey = {
    locationId: input.locationId ?? null,
    service: input.service,
    appointmentType: input.appointmentType ?? null,
  }
  const active = input.active ?? true
  if (active) await assertKeyFree(uow, key)
  return withKey(key, () =>
    tx.price.create({
      data: {
        id: newId('price'),
        tenantId,
        locationId: key.locationId,
        service: input.service,
        appointmentType: input.appointmentType ?? null,
        description: input.description ?? null,
        amount: input.amount,
        currency: input.currency,
        unit: input.unit,
        active,
        activeKey: active ? activeKeyOf(key) : null,
      },
    })
  )
}

/** One price of the unit's tenant, archived or not. @throws AppError `not_found` */
export async function getPrice({ tx, tenantId }: UnitOfWork, id: string) {
  const price = await tx.price.findFirst({ where: { id, tenantId } })
  if (!price) throw notFound('price', id)
  return price
}

/**
 * Applies a merge patch. The key (service, location, appointment type) and the currency are not writable: a price
 * for something else is another price.
 * @throws AppError `not_found`, `invalid_state_transition` (archived), `conflict` (activating onto a taken key)
 */
export async function updatePrice(uow: UnitOfWork, id: string, patch: PricePatch) {
  const price = await getPrice(uow, id)
  if (price.archivedAt) throw invalidStateTransition(`Price ${id} is archived; archived prices cannot change.`)
  const active = patch.active ?? price.active
  if (active && !price.active) await assertKeyFree(uow, price, id)
  return withKey(price, () =>
    uow.tx.price.update({
      where: { id: price.id },
      data: {
        description: patch.description === undefined ? undefined : patch.description,
        amount: patch.amount,
        unit: patch.unit,
        active,
        activeKey: active ? activeKeyOf(price) : null,
      },
    })
  )
}

/**
 * Archives a price: inactive for good, still readable. @throws AppError `not_found`, `invalid_state_transition`
 * (already archived)
 */
export async function archivePrice(uow: UnitOfWork, id: string, now: Date) {
  const price = await getPrice(uow, id)
  if (price.archivedAt) throw invalidStateTransition(`Price ${id} is already archived.`)
  return uow.tx.price.update({ where: { id }, data: { archivedAt: now, active: false, activeKey: null } })
}

/** A page of the tenant's prices; archived ones only when asked for (`archived=true`). */
export async function listPrices({ tx, tenantId }: UnitOfWork, query: ListPricesQuery) {
  const list = parseList(query)
  const rows = await tx.price.findMany({
    where: {
      AND: [
        {
          tenantId,
          service: query.service,
          locationId: query.locationId,
          appointmentType: query.appointmentType,
          currency: query.currency,
          active: query.active,
          archivedAt: query.archived ? { not: null } : null,
        },
        keysetWhere(list),
      ],
    },
    orderBy: keysetOrderBy(list),
    take: list.limit + 1,
  })
  return toSortedPage(rows, list)
}
