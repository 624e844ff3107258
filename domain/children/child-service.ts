/**
 * @module Children: the people therapy is for. A child is linked to the clients (parents, guardians, payers) who act
 * for them, carries languages, diagnoses, goals and early-intervention enrolment, and is archived rather than deleted
 * so their clinical history stays whole. Registering a child records `child.registered` in the same transaction.
 */
import type { Prisma } from '../../generated/prisma/client.ts'
import type { UnitOfWork } from '../../infra/unit-of-work.ts'
import { notFound, validationError, type FieldError } from '../errors.ts'
import { recordEvent } from '../events/record-event.ts'
import { newId } from '../ids.ts'
import { keysetOrderBy, keysetWhere, parseList, toSortedPage, type SortParam } from '../listing.ts'
import { resolveLocation } from '../locations/resolve-location.ts'
import { fieldErrorsOf, patchFields, withoutNulls, type JsonObject } from '../merge-patch.ts'
import { ChildFields, type ChildFieldsInput } from './child-schema.ts'
import { earlyInterventionColumns, earlyInterventionOf } from '../early-intervention/ei-enrolment.ts'
import { assignGoalIds, type Goal } from './goals.ts'

export const CHILD_SORTS = ['createdAt', 'lastName', 'dateOfBirth'] as const

export interface ChildListQuery {
  limit: number
  cursor?: string
  sort: SortParam<(typeof CHILD_SORTS)[number]>
  locationId?: string
  clientId?: string
  earlyIntervention?: boolean
  archived?: boolean
}

export type CreateChildInput = Partial<ChildFieldsInput> &
  Pick<ChildFieldsInput, 'firstName' | 'lastName' | 'dateOfBirth'>

/** Links come back primary contact first, then by client id: a stable order whatever order they were written in. */
const withLinks = {
  clientLinks: { orderBy: [{ primaryContact: 'desc' }, { clientId: 'asc' }] },
} as const satisfies Prisma.ChildInclude

export type ChildRecord = Prisma.ChildGetPayload<{ include: typeof withLinks }>

const toDate = (calendarDate: string) => new Date(`${calendarDate}T00:00:00.000Z`)

/** Stored goals (a JSON array written only by this module). */
export const goalsOf = (child: { goals: Prisma.JsonValue }) => child.goals as unknown as Goal[]

/**
 * Problems with the clients a write links: each must be a client of the tenant, and one archived since cannot be
 * newly linked (an existing link to them stays).
 */
async function linkErrors(uow: UnitOfWork, links: ChildFieldsInput['clients'], alreadyLinked: ReadonlySet<string>) {
  if (links.length === 0) return []
  const clients = await uow.tx.client.findMany({
    where: { tenantId: uow.tenantId, id: { in: links.map((l) => l.clientId) } },
    select: { id: true, archivedAt: true },
  })
  const found = new Map(clients.map((c) => [c.id, c]))
  return links.flatMap((link, index): FieldError[] => {
    const path = `clients.${index}.clientId`
    const client = found.get(link.clientId)
    if (!client) return [{ path, code: 'not_found', message: 'No client with this id.' }]
    if (client.archivedAt && !alreadyLinked.has(link.clientId)) {
      return [{ path, code: 'archived', message: 'This client is archived and cannot be newly linked.' }]
    }
    return []
  })
}

const dateOfBirthErrors = (dateOfBirth: string, today: Date): FieldError[] =>
  toDate(dateOfBirth).getTime() > today.getTime()
    ? [{ path: 'dateOfBirth', code: 'in_future', message: 'The date of birth is in the future.' }]
    : []

/** The columns of a child's writable fields other than links, goals and location. */
const columnsOf = (fields: ChildFieldsInput) => ({
  firstName: fields.firstName,
  lastName: fields.lastName,
  dateOfBirth: toDate(fields.dateOfBirth),
  languages: fields.languages,
  diagnoses: fields.diagnoses,
  ...earlyInterventionColumns(fields.earlyIntervention),
})

const linkRows = (tenantId: string, links: ChildFieldsInput['clients']) => links.map((link) => ({ tenantId, ...link }))

/**
 * Registers a child and records `child.registered` in the same transaction.
 * @param today - the current date, against which the date of birth is checked
 * @throws AppError `validation_error` for a date of birth in the future, an unknown location or client
 */
export async function createChild(uow: UnitOfWork, input: CreateChildInput, today: Date) {
  const parsed = ChildFields.safeParse(input)
  if (!parsed.success) throw validationError(fieldErrorsOf(parsed.error))
  const fields = parsed.data
  const location = await resolveLocation(uow, fields.locationId)
  const goals = assignGoalIds([], fields.goals, () => newId('goal'))
  const errors = [
    ...dateOfBirthErrors(fields.dateOfBirth, today),
    ...(await linkErrors(uow, fields.clients, new Set())),
    ...(goals.ok ? [] : goals.errors),
  ]
  if (errors.length > 0 || !goals.ok) throw validationError(errors)
  const child = await uow.tx.child.create({
    data: {
      id: newId('child'),
      tenantId: uow.tenantId,
      locationId: location.id,
      ...columnsOf(fields),
      goals: goals.goals as unknown as Prisma.InputJsonArray,
      clientLinks: { createMany: { data: linkRows(uow.tenantId, fields.clients) } },
    },
    include: withLinks,
  })
  await recordEvent(uow, 'child.registered', { childId: child.id, locationId: child.locationId }, { createdAt: today })
  return child
}

/** One child of the unit's tenant, archived or not, with their client links. @throws AppError `not_found` */
export async function getChild({ tx, tenantId }: UnitOfWork, id: string): Promise<ChildRecord> {
  const child = await tx.child.findFirst({ where: { id, tenantId }, include: withLinks })
  if (!child) throw notFound('child', id)
  return child
}

/** A page of the tenant's children; archived ones only when asked for (`archived=true`). */
export async function listChildren({ tx, tenantId }: UnitOfWork, query: ChildListQuery) {
  const list = parseList(query)
  const filters: Prisma.ChildWhereInput[] = [
    { tenantId, archivedAt: query.archived ? { not: null } : null },
    ...(query.locationId ? [{ locationId: query.locationId }] : []),
    ...(query.clientId ? [{ clientLinks: { some: { clientId: query.clientId } } }] : []),
    ...(query.earlyIntervention === undefined
      ? []
      : [{ eiReferralDate: query.earlyIntervention ? { not: null } : null }]),
  ]
  const rows = await tx.child.findMany({
    where: { AND: [...filters, keysetWhere(list) as Prisma.ChildWhereInput] },
    orderBy: keysetOrderBy(list),
    take: list.limit + 1,
    include: withLinks,
  })
  return toSortedPage(rows, list)
}

/**
 * Locks the child's row until the transaction ends, so a read-modify-write (a merge patch, an archive) never works on
 * a stale copy: concurrent changes to one child apply one after the other instead of losing each other's members.
 */
async function lockChild({ tx, tenantId }: UnitOfWork, id: string) {
  await tx.$queryRaw`SELECT id FROM children WHERE id = ${id} AND tenant_id = ${tenantId} FOR UPDATE`
}

/** The writable fields of a child, as a merge-patch target. */
export function writableOf(child: ChildRecord): JsonObject {
  return withoutNulls({
    firstName: child.firstName,
    lastName: child.lastName,
    dateOfBirth: child.dateOfBirth.toISOString().slice(0, 10),
    locationId: child.locationId,
    languages: child.languages,
    clients: child.clientLinks.map((l) => ({
      clientId: l.clientId,
      relationship: l.relationship,
      primaryContact: l.primaryContact,
      legalGuardian: l.legalGuardian,
      financiallyResponsible: l.financiallyResponsible,
    })),
    diagnoses: child.diagnoses,
    goals: goalsOf(child),
    earlyIntervention: earlyInterventionOf(child),
  })
}

/**
 * Changes a child by JSON merge patch. Arrays (clients, languages, diagnoses, goals) are replaced whole; nested
 * objects (earlyIntervention and its serviceCoordinator) merge; `earlyIntervention: null` ends the enrolment record.
 * @throws AppError `validation_error` listing every offending field
 */
export async function patchChild(uow: UnitOfWork, id: string, patch: JsonObject, today: Date) {
  // Locked first, so the links are replaced one PATCH after the other and "at most one primary contact" holds for
  // whichever wins.
  await lockChild(uow, id)
  const child = await getChild(uow, id)
  const fields = patchFields(ChildFields, writableOf(child), patch)
  if (!fields.ok) throw validationError(fields.errors)
  const next = fields.data
  const goals = assignGoalIds(goalsOf(child), next.goals, () => newId('goal'))
  const linked = new Set(child.clientLinks.map((l) => l.clientId))
  const errors = [
    ...dateOfBirthErrors(next.dateOfBirth, today),
    ...(await linkErrors(uow, next.clients, linked)),
    ...(goals.ok ? [] : goals.errors),
  ]
  if (errors.length > 0 || !goals.ok) throw validationError(errors)
  const locationId =
    next.locationId && next.locationId !== child.locationId
      ? (await resolveLocation(uow, next.locationId)).id
      : child.locationId

  await uow.tx.child.update({
    where: { id: child.id },
    data: { ...columnsOf(next), locationId, goals: goals.goals as unknown as Prisma.InputJsonArray },
  })
  if ('clients' in patch) {
    await uow.tx.childClientLink.deleteMany({ where: { childId: child.id } })
    await uow.tx.childClientLink.createMany({
      data: next.clients.map((link) => ({ tenantId: uow.tenantId, childId: child.id, ...link })),
    })
  }
  return getChild(uow, child.id)
}

/** Archives a child (DELETE): the record and its history stay, left out of lists by default. Idempotent. */
export async function archiveChild(uow: UnitOfWork, id: string, now: Date) {
  await lockChild(uow, id)
  const child = await getChild(uow, id)
  if (child.archivedAt) return child
  return uow.tx.child.update({ where: { id: child.id }, data: { archivedAt: now }, include: withLinks })
}
