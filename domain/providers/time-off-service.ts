/**
 * @module A provider's time off: ranges during which nobody can book them, whatever their working hours say
 * (availability and booking read them through domain/availability). Recording time off does not cancel appointments
 * already booked inside it: the response lists them (`conflictingAppointmentIds`) so the centre can move them.
 */
import type { Prisma } from '../../generated/prisma/client.ts'
import type { TimeOffReason } from '../../generated/prisma/enums.ts'
import type { UnitOfWork } from '../../infra/unit-of-work.ts'
import { notFound, validationError } from '../errors.ts'
import { newId } from '../ids.ts'
import { keysetOrderBy, keysetWhere, parseList, toSortedPage, type SortParam } from '../listing.ts'
import { getProvider } from './provider-service.ts'
import { MAX_TIME_OFF_DAYS } from './time-off-length.ts'
import { DAY_MS } from '../../common/time/calendar.ts'

export interface TimeOffInput {
  startsAt: Date
  endsAt: Date
  reason: TimeOffReason
  note?: string | null
}

function assertRange(startsAt: Date, endsAt: Date) {
  if (endsAt <= startsAt) {
    throw validationError([{ path: 'endsAt', code: 'before_start', message: 'endsAt must be after startsAt.' }])
  }
  if (endsAt.getTime() - startsAt.getTime() > MAX_TIME_OFF_DAYS * DAY_MS) {
    throw validationError([
      { path: 'endsAt', code: 'too_long', message: `Time off lasts at most ${MAX_TIME_OFF_DAYS} days.` },
    ])
  }
}

/** A time-off entry with the provider's zone (for display) and the CONFIRMED appointments it overlaps. */
async function withContext(uow: UnitOfWork, row: Prisma.ProviderTimeOffGetPayload<object>, timeZone?: string) {
  const zone =
    timeZone ??
    (await uow.tx.provider.findFirstOrThrow({ where: { id: row.providerId }, select: { timeZone: true } })).timeZone
  const clashes = await uow.tx.appointment.findMany({
    where: {
      tenantId: uow.tenantId,
      providerId: row.providerId,
      status: 'CONFIRMED',
      startsAt: { lt: row.endsAt },
      endsAt: { gt: row.startsAt },
    },
    select: { id: true },
    orderBy: { startsAt: 'asc' },
    take: 100,
  })
  return { ...row, timeZone: zone, conflictingAppointmentIds: clashes.map((a) => a.id) }
}

export type TimeOffView = Awaited<ReturnType<typeof withContext>>

/**
 * Records time off for a provider.
 * @throws AppError `not_found` (provider), `validation_error`
 */
export async function createTimeOff(uow: UnitOfWork, providerId: string, input: TimeOffInput): Promise<TimeOffView> {
  const provider = await getProvider(uow, providerId)
  assertRange(input.startsAt, input.endsAt)
  const row = await uow.tx.providerTimeOff.create({
    data: {
      id: newId('timeOff'),
      tenantId: uow.tenantId,
      providerId,
      startsAt: input.startsAt,
      endsAt: input.endsAt,
      reason: input.reason,
      note: input.note ?? null,
    },
  })
  return withContext(uow, row, provider.timeZone)
}

async function findTimeOff({ tx, tenantId }: UnitOfWork, providerId: string, id: string) {
  const row = await tx.providerTimeOff.findFirst({ where: { id, providerId, tenantId } })
  if (!row) throw notFound('time off', id)
  return row
}

/** One time-off entry of a provider. @throws AppError `not_found` */
export async function getTimeOff(uow: UnitOfWork, providerId: string, id: string): Promise<TimeOffView> {
  return withContext(uow, await findTimeOff(uow, providerId, id))
}

/**
 * Applies a merge patch of `startsAt`, `endsAt`, `reason`, `note` (null removes the note).
 * @throws AppError `not_found`, `validation_error`
 */
export async function updateTimeOff(
  uow: UnitOfWork,
  providerId: string,
  id: string,
  patch: Partial<TimeOffInput>
): Promise<TimeOffView> {
  // A merge patch is a read-modify-write: lock the row so concurrent patches apply one after the other.
  await uow.tx.$queryRaw`SELECT id FROM provider_time_off WHERE id = ${id} AND tenant_id = ${uow.tenantId} FOR UPDATE`
  const current = await findTimeOff(uow, providerId, id)
  const startsAt = patch.startsAt ?? current.startsAt
  const endsAt = patch.endsAt ?? current.endsAt
  assertRange(startsAt, endsAt)
  const row = await uow.tx.providerTimeOff.update({
    where: { id },
    data: {
      startsAt,
      endsAt,
      reason: patch.reason ?? current.reason,
      note: patch.note === undefined ? current.note : patch.note,
    },
  })
  return withContext(uow, row)
}

/** Deletes a time-off entry: the provider is bookable in that range again. @throws AppError `not_found` */
export async function deleteTimeOff(uow: UnitOfWork, providerId: string, id: string): Promise<void> {
  await findTimeOff(uow, providerId, id)
  await uow.tx.providerTimeOff.delete({ where: { id } })
}

export const TIME_OFF_SORTS = ['startsAt', 'createdAt'] as const

export interface ListTimeOffQuery {
  limit: number
  cursor?: string
  sort: SortParam<(typeof TIME_OFF_SORTS)[number]>
  /** Only entries ending after this instant. */
  from?: Date
  /** Only entries starting before this instant. */
  to?: Date
}

/** A page of a provider's time off. @throws AppError `not_found` (provider) */
export async function listTimeOff(uow: UnitOfWork, providerId: string, query: ListTimeOffQuery) {
  const provider = await getProvider(uow, providerId)
  const list = parseList(query)
  const where: Prisma.ProviderTimeOffWhereInput[] = [{ tenantId: uow.tenantId, providerId }]
  if (query.from) where.push({ endsAt: { gt: query.from } })
  if (query.to) where.push({ startsAt: { lt: query.to } })
  const rows = await uow.tx.providerTimeOff.findMany({
    where: { AND: [...where, keysetWhere(list) as Prisma.ProviderTimeOffWhereInput] },
    orderBy: keysetOrderBy(list),
    take: list.limit + 1,
  })
  const page = toSortedPage(rows, list)
  const data: TimeOffView[] = []
  for (const row of page.data) data.push(await withContext(uow, row, provider.timeZone))
  return { data, nextCursor: page.nextCursor }
}
