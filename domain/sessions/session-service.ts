/**
 * @module Sessions: read, list, open at check-in, and change by JSON merge patch under the rules of session-rules.ts.
 * A PATCH locks the session's row, so two concurrent state changes are applied one after the other and the second
 * is judged against the first's outcome.
 */
import type { Prisma, Session } from '../../generated/prisma/client.ts'
import type { UnitOfWork } from '../../infra/unit-of-work.ts'
import { invalidStateTransition, notFound, validationError } from '../errors.ts'
import { keysetOrderBy, keysetWhere, parseList, toSortedPage, type SortParam } from '../listing.ts'
import { patchFields, withoutNulls, type JsonObject } from '../merge-patch.ts'
import { formatInTimeZone } from '../time.ts'
import { ensureSessionForAppointment } from './ensure-session.ts'
import { canTransition, sessionRecordErrors } from './session-rules.ts'
import { SessionFields, type BillingLineInput } from './session-schema.ts'

export const SESSION_SORTS = ['scheduledStartsAt', 'createdAt'] as const

export interface SessionListQuery {
  limit: number
  cursor?: string
  sort: SortParam<(typeof SESSION_SORTS)[number]>
  childId?: string
  providerId?: string
  appointmentId?: string
  status?: Session['status']
  /** Sessions scheduled to start at or after this instant. */
  from?: Date
  /** Sessions scheduled to start before this instant. */
  to?: Date
}

/** The billing lines of a stored session (the JSON column, written only through {@link SessionFields}). */
export const billingLinesOf = (session: Session) => session.billingCodes as unknown as BillingLineInput[]

/** One session of the unit's tenant. @throws AppError `not_found` */
export async function getSession({ tx, tenantId }: UnitOfWork, id: string): Promise<Session> {
  const session = await tx.session.findFirst({ where: { id, tenantId } })
  if (!session) throw notFound('session', id)
  return session
}

/**
 * Opens the session of an appointment (check-in), or returns the one it already has.
 * @returns the session and whether it was created by this call
 * @throws AppError `validation_error` for an appointment that is not the tenant's; `invalid_state_transition` for a
 *   cancelled or no-show appointment
 */
export async function openSession(uow: UnitOfWork, input: { appointmentId: string }) {
  const appointment = await uow.tx.appointment.findFirst({
    where: { id: input.appointmentId, tenantId: uow.tenantId },
    select: { id: true },
  })
  if (!appointment) {
    throw validationError([{ path: 'appointmentId', code: 'not_found', message: 'No appointment with this id.' }])
  }
  const { id, created } = await ensureSessionForAppointment(uow, { appointmentId: appointment.id })
  return { session: await getSession(uow, id), created }
}

/** A page of the tenant's sessions. */
export async function listSessions({ tx, tenantId }: UnitOfWork, query: SessionListQuery) {
  const list = parseList(query)
  const filters: Prisma.SessionWhereInput[] = [
    { tenantId },
    ...(query.childId ? [{ childId: query.childId }] : []),
    ...(query.providerId ? [{ providerId: query.providerId }] : []),
    ...(query.appointmentId ? [{ appointmentId: query.appointmentId }] : []),
    ...(query.status ? [{ status: query.status }] : []),
    ...(query.from ? [{ scheduledStartsAt: { gte: query.from } }] : []),
    ...(query.to ? [{ scheduledStartsAt: { lt: query.to } }] : []),
  ]
  const rows = await tx.session.findMany({
    where: { AND: [...filters, keysetWhere(list) as Prisma.SessionWhereInput] },
    orderBy: keysetOrderBy(list),
    take: list.limit + 1,
  })
  return toSortedPage(rows, list)
}

/** The writable fields of a stored session, in the form a merge patch applies to. */
const writableOf = (session: Session): JsonObject =>
  withoutNulls({
    status: session.status,
    actualStartedAt: session.actualStartedAt && formatInTimeZone(session.actualStartedAt, session.timeZone),
    actualEndedAt: session.actualEndedAt && formatInTimeZone(session.actualEndedAt, session.timeZone),
    attendance: session.attendance,
    billingCodes: billingLinesOf(session),
    placeOfService: session.placeOfService,
    telehealth: session.telehealth,
  })

/**
 * Changes a session by JSON merge patch. Entering IN_PROGRESS records the start (now, unless given) and attendance
 * PRESENT (unless given); completing an IN_PROGRESS session records its end the same way.
 * @param now - the request's clock
 * @throws AppError `not_found`; `invalid_state_transition` (409) for a transition the state machine forbids;
 *   `validation_error` for bad formats or a record that contradicts itself (session-rules.ts)
 */
export async function patchSession(uow: UnitOfWork, id: string, patch: JsonObject, now: Date): Promise<Session> {
  const { tx, tenantId } = uow
  // Serialises concurrent changes of one session (the second waits, then sees the first's state).
  await tx.$queryRaw`SELECT id FROM sessions WHERE id = ${id} AND tenant_id = ${tenantId} FOR UPDATE`
  const session = await getSession(uow, id)
  const fields = patchFields(SessionFields, writableOf(session), patch)
  if (!fields.ok) throw validationError(fields.errors)
  const next = fields.data

  if (!canTransition(session.status, next.status)) {
    throw invalidStateTransition(`A ${session.status} session cannot become ${next.status}.`)
  }
  let actualStartedAt = next.actualStartedAt ? new Date(next.actualStartedAt) : undefined
  let actualEndedAt = next.actualEndedAt ? new Date(next.actualEndedAt) : undefined
  let attendance = next.attendance
  const entering = next.status !== session.status
  if (entering && next.status === 'IN_PROGRESS') {
    actualStartedAt ??= now
    attendance ??= 'PRESENT'
  }
  if (entering && next.status === 'COMPLETED') {
    if (actualStartedAt) actualEndedAt ??= now
    attendance ??= 'PRESENT'
  }

  const errors = sessionRecordErrors({
    status: next.status,
    attendance,
    actualStartedAt,
    actualEndedAt,
    billingCodes: next.billingCodes,
    placeOfService: next.placeOfService,
    telehealth: next.telehealth,
  })
  if (errors.length > 0) throw validationError(errors)

  return tx.session.update({
    where: { id: session.id },
    data: {
      status: next.status,
      actualStartedAt: actualStartedAt ?? null,
      actualEndedAt: actualEndedAt ?? null,
      attendance: attendance ?? null,
      billingCodes: next.billingCodes,
      placeOfService: next.placeOfService ?? null,
      telehealth: next.telehealth,
    },
  })
}
