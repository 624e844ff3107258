/**
 * @module The assessments' rows: reading, locking and listing them (and their notifications), inserting one, and what
 * every change of an assessment is given ({@link AssessmentDeps}). The changes are one function per file, given their
 * dependencies first, as the appointments' are: create-assessment.ts, patch-assessment.ts, cancel-assessment.ts,
 * complete-assessment.ts, recall-assessment.ts; assessment-service.ts composes them for the API. Changes lock the
 * assessment's row, serialising them with each other and with the workflow's steps, and keep the reminder workflow in
 * step (assessment-workflow-calls.ts).
 */
import type { Assessment, Prisma } from '../../generated/prisma/client.ts'
import type { Clock } from '../../infra/clock.ts'
import type { UnitOfWork } from '../../infra/unit-of-work.ts'
import { notFound, type FieldError } from '../errors.ts'
import { newId } from '../ids.ts'
import { keysetOrderBy, keysetWhere, parseList, toSortedPage, type SortParam } from '../listing.ts'
import type { AssessmentWorkflowCalls } from './assessment-workflow-calls.ts'
import type { AssessmentFieldsInput } from './assessment-schema.ts'

/** What every change of an assessment is given, explicitly, as its first argument (and the service, whole). */
export interface AssessmentDeps {
  reminders: AssessmentWorkflowCalls
  clock: Clock
}

export const ASSESSMENT_SORTS = ['createdAt'] as const
export const NOTIFICATION_SORTS = ['createdAt'] as const

export interface AssessmentListQuery {
  limit: number
  cursor?: string
  sort: SortParam<(typeof ASSESSMENT_SORTS)[number]>
  childId?: string
  providerId?: string
  status?: Assessment['status']
  instrument?: string
  /** Due on or after this date (YYYY-MM-DD). */
  dueFrom?: string
  /** Due on or before this date (YYYY-MM-DD). */
  dueTo?: string
}

/** An assessment with the id of the re-assessment that follows it, if any. */
export type AssessmentWithNext = Assessment & { next: { id: string } | null }

export const withNext = { next: { select: { id: true } } } as const

export const toDate = (date: string) => new Date(`${date}T00:00:00.000Z`)

/** Unknown child or provider of the tenant, as field errors. */
export async function assessmentReferenceErrors(
  { tx, tenantId }: UnitOfWork,
  fields: { childId?: string; providerId?: string }
) {
  const errors: FieldError[] = []
  if (fields.childId) {
    const child = await tx.child.findFirst({ where: { id: fields.childId, tenantId }, select: { id: true } })
    if (!child) errors.push({ path: 'childId', code: 'not_found', message: 'No child with this id.' })
  }
  if (fields.providerId) {
    const provider = await tx.provider.findFirst({ where: { id: fields.providerId, tenantId }, select: { id: true } })
    if (!provider) errors.push({ path: 'providerId', code: 'not_found', message: 'No provider with this id.' })
  }
  return errors
}

/** Inserts an assessment (a re-assessment of `previousAssessmentId`) and keeps its reminder workflow in step. */
export async function insertAssessment(
  { reminders }: Pick<AssessmentDeps, 'reminders'>,
  uow: UnitOfWork,
  input: AssessmentFieldsInput,
  previousAssessmentId?: string
) {
  const assessment = await uow.tx.assessment.create({
    data: {
      id: newId('assessment'),
      tenantId: uow.tenantId,
      childId: input.childId,
      providerId: input.providerId ?? null,
      instrument: input.instrument,
      dueDate: input.dueDate ? toDate(input.dueDate) : null,
      reassessmentCadenceDays: input.reassessmentCadenceDays ?? null,
      previousAssessmentId: previousAssessmentId ?? null,
    },
    include: withNext,
  })
  await reminders.assessmentChanged(uow, assessment)
  return assessment
}

/** One assessment of the unit's tenant. @throws AppError `not_found` */
export async function getAssessment({ tx, tenantId }: UnitOfWork, id: string): Promise<AssessmentWithNext> {
  const assessment = await tx.assessment.findFirst({ where: { id, tenantId }, include: withNext })
  if (!assessment) throw notFound('assessment', id)
  return assessment
}

/** One assessment, its row locked for this unit. @throws AppError `not_found` */
export async function lockAssessment(uow: UnitOfWork, id: string): Promise<AssessmentWithNext> {
  await uow.tx.$queryRaw`SELECT id FROM assessments WHERE id = ${id} AND tenant_id = ${uow.tenantId} FOR UPDATE`
  return getAssessment(uow, id)
}

/** A page of the tenant's assessments. */
export async function listAssessments({ tx, tenantId }: UnitOfWork, query: AssessmentListQuery) {
  const parsed = parseList(query)
  const dueDate = {
    ...(query.dueFrom ? { gte: toDate(query.dueFrom) } : {}),
    ...(query.dueTo ? { lte: toDate(query.dueTo) } : {}),
  }
  const filters: Prisma.AssessmentWhereInput[] = [
    { tenantId },
    ...(query.childId ? [{ childId: query.childId }] : []),
    ...(query.providerId ? [{ providerId: query.providerId }] : []),
    ...(query.status ? [{ status: query.status }] : []),
    ...(query.instrument ? [{ instrument: query.instrument }] : []),
    ...(query.dueFrom || query.dueTo ? [{ dueDate }] : []),
  ]
  const rows = await tx.assessment.findMany({
    where: { AND: [...filters, keysetWhere(parsed) as Prisma.AssessmentWhereInput] },
    orderBy: keysetOrderBy(parsed),
    take: parsed.limit + 1,
    include: withNext,
  })
  return toSortedPage(rows, parsed)
}

/** A page of the notifications (reminders, due notices, escalations) recorded for an assessment. */
export async function listAssessmentNotifications(
  uow: UnitOfWork,
  id: string,
  query: { limit: number; cursor?: string; sort: SortParam<'createdAt'> }
) {
  await getAssessment(uow, id)
  const parsed = parseList(query)
  const rows = await uow.tx.assessmentNotification.findMany({
    where: {
      AND: [
        { assessmentId: id, tenantId: uow.tenantId },
        keysetWhere(parsed) as Prisma.AssessmentNotificationWhereInput,
      ],
    },
    orderBy: keysetOrderBy(parsed),
    take: parsed.limit + 1,
  })
  return toSortedPage(rows, parsed)
}
