/**
 * @module Providers (therapists): what they practise (disciplines), for whom (age groups, languages), where
 * (locations, telehealth), when (time zone, weekly hours; time off in time-off-service.ts), with which credentials,
 * and how far through onboarding (onboarding.ts). Providers are never deleted: they are offboarded.
 */
import { Prisma } from '../../generated/prisma/client.ts'
import type { ProviderOnboardingStatus } from '../../generated/prisma/enums.ts'
import type { UnitOfWork } from '../../infra/unit-of-work.ts'
import { speaksSql } from '../availability/schedule-queries.ts'
import { readWeeklyHours } from '../availability/weekly-hours.ts'
import { notFound } from '../errors.ts'
import { newId } from '../ids.ts'
import { keysetOrderBy, keysetWhere, parseList, toSortedPage, type SortParam } from '../listing.ts'
import { resolveLocation } from '../locations/resolve-location.ts'
import { patchResource, withoutNulls, type JsonObject } from '../merge-patch.ts'
import { readCredentials } from './credentials.ts'
import { canonicalLanguage } from './languages.ts'
import {
  ProviderFieldsSchema,
  toProviderColumns,
  type ProviderColumns,
  type ProviderFields,
} from './provider-fields.ts'

/** Statuses a provider may be created in: directly approved (the default), or at the start of onboarding. */
export const INITIAL_ONBOARDING_STATUSES = ['INVITED', 'IN_REVIEW', 'APPROVED'] as const

export interface CreateProviderInput extends ProviderFields {
  onboardingStatus?: (typeof INITIAL_ONBOARDING_STATUSES)[number]
}

const withLocations = { serviceLocations: { select: { locationId: true }, orderBy: { createdAt: 'asc' } } } as const

export type ProviderRow = Prisma.ProviderGetPayload<{ include: typeof withLocations }>

/** A provider as the API shows it: stored JSON read back into its types, all locations with the primary first. */
export function providerView(row: ProviderRow) {
  const others = row.serviceLocations.map((l) => l.locationId).filter((id) => id !== row.locationId)
  return {
    ...row,
    locationIds: [row.locationId, ...others],
    weeklyHours: readWeeklyHours(row.weeklyHours),
    credentials: readCredentials(row.credentials),
  }
}

export type ProviderView = ReturnType<typeof providerView>

function columnsData(columns: ProviderColumns) {
  const { locationIds: _all, weeklyHours, credentials, ...scalar } = columns
  return {
    ...scalar,
    // Prisma writes SQL NULL for a JSON column only when told so explicitly.
    weeklyHours: weeklyHours === null ? Prisma.DbNull : (weeklyHours as unknown as Prisma.InputJsonValue),
    credentials: credentials as unknown as Prisma.InputJsonValue,
  }
}

/**
 * Creates a provider: APPROVED (bookable at once) unless created earlier in onboarding.
 * @param now - creation time, recorded as the approval time of a provider created APPROVED
 * @throws AppError `validation_error`
 */
export async function createProvider(uow: UnitOfWork, input: CreateProviderInput, now: Date = new Date()) {
  const { onboardingStatus = 'APPROVED', ...fields } = input
  const columns = await toProviderColumns(uow, fields, async () => (await resolveLocation(uow, undefined)).id)
  const id = newId('provider')
  await uow.tx.provider.create({
    data: {
      id,
      tenantId: uow.tenantId,
      ...columnsData(columns),
      onboardingStatus,
      approvedAt: onboardingStatus === 'APPROVED' ? now : null,
    },
  })
  await uow.tx.providerLocation.createMany({
    data: columns.locationIds.map((locationId) => ({ tenantId: uow.tenantId, providerId: id, locationId })),
  })
  return getProvider(uow, id)
}

/** One provider of the unit's tenant. @throws AppError `not_found` */
export async function getProvider({ tx, tenantId }: UnitOfWork, id: string): Promise<ProviderView> {
  const provider = await tx.provider.findFirst({ where: { id, tenantId }, include: withLocations })
  if (!provider) throw notFound('provider', id)
  return providerView(provider)
}

/** The writable fields of a provider as a merge-patch target (absent rather than null). */
function writableFields(p: ProviderView): JsonObject {
  return withoutNulls({
    name: p.name,
    email: p.email,
    timeZone: p.timeZone,
    locationId: p.locationId,
    locationIds: p.locationIds,
    disciplines: p.disciplines,
    languages: p.languages,
    ageGroups: p.ageGroups,
    telehealth: p.telehealth,
    weeklyHours: p.weeklyHours,
    credentials: p.credentials,
  })
}

/**
 * Applies a JSON merge patch (RFC 7396) to the provider's writable fields. Onboarding status changes only through
 * the onboarding operations. Replacing `locationIds` keeps the primary location (it is always one of them).
 * @throws AppError `not_found`, `validation_error`
 */
export async function updateProvider(uow: UnitOfWork, id: string, patch: JsonObject) {
  // A merge patch is a read-modify-write: lock the row so concurrent patches apply one after the other.
  await uow.tx.$queryRaw`SELECT id FROM providers WHERE id = ${id} AND tenant_id = ${uow.tenantId} FOR UPDATE`
  const current = await getProvider(uow, id)
  const fields = patchResource(ProviderFieldsSchema, writableFields(current), patch)
  const columns = await toProviderColumns(uow, fields, async () => current.locationId)
  await uow.tx.provider.update({ where: { id }, data: columnsData(columns) })
  const before = new Set(current.locationIds)
  const after = new Set(columns.locationIds)
  const removed = current.locationIds.filter((l) => !after.has(l))
  if (removed.length)
    await uow.tx.providerLocation.deleteMany({ where: { providerId: id, locationId: { in: removed } } })
  const added = columns.locationIds.filter((l) => !before.has(l))
  if (added.length) {
    await uow.tx.providerLocation.createMany({
      data: added.map((locationId) => ({ tenantId: uow.tenantId, providerId: id, locationId })),
    })
  }
  return getProvider(uow, id)
}

export const PROVIDER_SORTS = ['createdAt', 'name', 'updatedAt'] as const
export type ProviderSortField = (typeof PROVIDER_SORTS)[number]

export interface ListProvidersQuery {
  limit: number
  cursor?: string
  sort: SortParam<ProviderSortField>
  discipline?: string
  locationId?: string
  language?: string
  ageGroup?: string
  onboardingStatus?: ProviderOnboardingStatus
  telehealth?: boolean
}

/** A page of the tenant's providers, filtered and sorted. */
export async function listProviders(uow: UnitOfWork, query: ListProvidersQuery) {
  const { tx, tenantId } = uow
  const list = parseList(query)
  const filters: Prisma.ProviderWhereInput[] = [{ tenantId }]
  if (query.discipline) filters.push({ disciplines: { has: query.discipline } })
  if (query.ageGroup) filters.push({ ageGroups: { has: query.ageGroup } })
  if (query.locationId) filters.push({ serviceLocations: { some: { locationId: query.locationId } } })
  if (query.onboardingStatus) filters.push({ onboardingStatus: query.onboardingStatus })
  if (query.telehealth !== undefined) filters.push({ telehealth: query.telehealth })
  if (query.language) filters.push({ id: { in: await providerIdsSpeaking(uow, query.language) } })
  const rows = await tx.provider.findMany({
    where: { AND: [...filters, keysetWhere(list) as Prisma.ProviderWhereInput] },
    orderBy: keysetOrderBy(list),
    take: list.limit + 1,
    include: withLocations,
  })
  const page = toSortedPage(rows, list)
  return { data: page.data.map(providerView), nextCursor: page.nextCursor }
}

/** Ids of the tenant's providers speaking `language` or a regional variant (the availability filter's rule). */
async function providerIdsSpeaking({ tx, tenantId }: UnitOfWork, language: string): Promise<string[]> {
  const tag = canonicalLanguage(language) ?? language
  const rows = await tx.$queryRaw<
    Array<{ id: string }>
  >`SELECT p.id FROM providers p WHERE p.tenant_id = ${tenantId} AND ${speaksSql(tag)}`
  return rows.map((r) => r.id)
}
