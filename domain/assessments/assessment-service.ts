/**
 * @module Assessments: create, read, list, change by JSON merge patch, cancel, and complete with scores. Completion
 * emits `assessment.completed` and, when the assessment has a re-assessment cadence, creates the next assessment
 * (due `cadence` days after the completion date, in the same transaction, so a completed assessment with a cadence
 * always has its successor). Every change keeps the reminder workflow in step (assessment-reminders.ts). Changes
 * lock the assessment's row, serialising them with each other and with the workflow's steps.
 */
import type { Assessment, Prisma } from '../../generated/prisma/client.ts'
import type { Clock } from '../../infra/clock.ts'
import type { UnitOfWork } from '../../infra/unit-of-work.ts'
import { invalidStateTransition, notFound, validationError, type FieldError } from '../errors.ts'
import { recordEvent } from '../events/record-event.ts'
import { newId } from '../ids.ts'
import { keysetOrderBy, keysetWhere, parseList, toSortedPage, type SortParam } from '../listing.ts'
import { patchFields, withoutNulls, type JsonObject } from '../merge-patch.ts'
import { isOpen } from './assessment-rules.ts'
import {
  AssessmentPatchFields,
  type AssessmentCompletionInput,
  type AssessmentFieldsInput,
} from './assessment-schema.ts'
import type { AssessmentReminders } from './assessment-reminders.ts'
import { addDays } from './due-day.ts'
import { calendarDateOf, localDateForAssessment } from './reminder-steps.ts'

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

const withNext = { next: { select: { id: true } } } as const

const toDate = (date: string) => new Date(`${date}T00:00:00.000Z`)

export interface AssessmentServiceDeps {
  reminders: AssessmentReminders
  clock: Clock
}

/** Creates the assessment service. */
export function createAssessmentService({ reminders, clock }: AssessmentServiceDeps) {
  /** Unknown child or provider of the tenant, as field errors. */
  async function referenceErrors({ tx, tenantId }: UnitOfWork, fields: { childId?: string; providerId?: string }) {
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

  async function insert(uow: UnitOfWork, input: AssessmentFieldsInput, previousAssessmentId?: string) {
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

  /**
   * Schedules an assessment; with a due date, its reminder workflow starts after commit.
   * @throws AppError `validation_error` for an unknown child or provider
   */
  async function create(uow: UnitOfWork, input: AssessmentFieldsInput): Promise<AssessmentWithNext> {
    const errors = await referenceErrors(uow, input)
    if (errors.length > 0) throw validationError(errors)
    return insert(uow, input)
  }

  /** One assessment of the unit's tenant. @throws AppError `not_found` */
  async function get({ tx, tenantId }: UnitOfWork, id: string): Promise<AssessmentWithNext> {
    const assessment = await tx.assessment.findFirst({ where: { id, tenantId }, include: withNext })
    if (!assessment) throw notFound('assessment', id)
    return assessment
  }

  async function lock(uow: UnitOfWork, id: string): Promise<AssessmentWithNext> {
    await uow.tx.$queryRaw`SELECT id FROM assessments WHERE id = ${id} AND tenant_id = ${uow.tenantId} FOR UPDATE`
    return get(uow, id)
  }

  /** A page of the tenant's assessments. */
  async function list({ tx, tenantId }: UnitOfWork, query: AssessmentListQuery) {
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

  /**
   * Changes an open assessment by JSON merge patch (provider, instrument, due date, cadence). A new due date puts
   * it back to SCHEDULED and re-plans its reminders.
   * @throws AppError `invalid_state_transition` (409) for a completed or cancelled assessment; `validation_error`
   */
  async function patch(uow: UnitOfWork, id: string, patchBody: JsonObject): Promise<AssessmentWithNext> {
    const current = await lock(uow, id)
    if (!isOpen(current.status))
      throw invalidStateTransition(`A ${current.status} assessment can no longer be changed.`)
    const writable = withoutNulls({
      providerId: current.providerId,
      instrument: current.instrument,
      dueDate: current.dueDate && calendarDateOf(current.dueDate),
      reassessmentCadenceDays: current.reassessmentCadenceDays,
    })
    const fields = patchFields(AssessmentPatchFields, writable, patchBody)
    if (!fields.ok) throw validationError(fields.errors)
    const next = fields.data
    const errors =
      next.providerId !== current.providerId ? await referenceErrors(uow, { providerId: next.providerId }) : []
    if (errors.length > 0) throw validationError(errors)
    const dueDateMoved = (next.dueDate ?? null) !== (current.dueDate ? calendarDateOf(current.dueDate) : null)
    const updated = await uow.tx.assessment.update({
      where: { id: current.id },
      data: {
        providerId: next.providerId ?? null,
        instrument: next.instrument,
        dueDate: next.dueDate ? toDate(next.dueDate) : null,
        reassessmentCadenceDays: next.reassessmentCadenceDays ?? null,
        ...(dueDateMoved ? { status: 'SCHEDULED' as const } : {}),
      },
      include: withNext,
    })
    if (dueDateMoved) await reminders.assessmentChanged(uow, updated)
    return updated
  }

  /**
   * Cancels an open assessment (DELETE): kept, with `cancelledAt`; its reminders stop. Idempotent.
   * @throws AppError `invalid_state_transition` for a completed assessment
   */
  async function cancel(uow: UnitOfWork, id: string): Promise<AssessmentWithNext> {
    const current = await lock(uow, id)
    if (current.status === 'CANCELLED') return current
    if (current.status === 'COMPLETED') throw invalidStateTransition('A COMPLETED assessment cannot be cancelled.')
    const cancelled = await uow.tx.assessment.update({
      where: { id: current.id },
      data: { status: 'CANCELLED', cancelledAt: clock() },
      include: withNext,
    })
    await reminders.assessmentChanged(uow, cancelled)
    return cancelled
  }

  /**
   * Records the completion with its scores, emits `assessment.completed`, ends the reminders and, with a cadence,
   * creates the re-assessment.
   * @throws AppError `invalid_state_transition` (409) unless the assessment is open; `validation_error` for a
   *   completion time in the future
   */
  async function complete(uow: UnitOfWork, id: string, input: AssessmentCompletionInput): Promise<AssessmentWithNext> {
    const current = await lock(uow, id)
    // Read the clock once the row is ours: a reminder step that held the lock read its clock before taking it, so
    // its notification and `assessment.due` are never stamped after this completion (they committed before it).
    const now = clock()
    if (!isOpen(current.status)) throw invalidStateTransition(`A ${current.status} assessment cannot be completed.`)
    const completedAt = input.completedAt ? new Date(input.completedAt) : now
    if (completedAt.getTime() > now.getTime() + 60_000) {
      throw validationError([
        {
          path: 'completedAt',
          code: 'in_future',
          message: 'An assessment is completed when it was administered, not later.',
        },
      ])
    }
    const completed = await uow.tx.assessment.update({
      where: { id: current.id },
      data: { status: 'COMPLETED', completedAt, scores: input.scores },
      include: withNext,
    })
    await recordEvent(
      uow,
      'assessment.completed',
      {
        assessmentId: completed.id,
        childId: completed.childId,
        providerId: completed.providerId,
        instrument: completed.instrument,
        completedAt: completedAt.toISOString(),
      },
      { createdAt: now }
    )
    await reminders.assessmentChanged(uow, completed)
    if (!completed.reassessmentCadenceDays) return completed

    const completedOn = await localDateForAssessment(uow, completed, completedAt)
    const successor = await insert(
      uow,
      {
        childId: completed.childId,
        providerId: completed.providerId ?? undefined,
        instrument: completed.instrument,
        dueDate: addDays(completedOn, completed.reassessmentCadenceDays),
        reassessmentCadenceDays: completed.reassessmentCadenceDays,
      },
      completed.id
    )
    return { ...completed, next: { id: successor.id } }
  }

  /** A page of the notifications (reminders, due notices, escalations) recorded for an assessment. */
  async function listNotifications(
    uow: UnitOfWork,
    id: string,
    query: { limit: number; cursor?: string; sort: SortParam<'createdAt'> }
  ) {
    await get(uow, id)
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

  /**
   * Recalls a completed assessment that has no re-assessment yet (domain/ai/assessment-recall/assessment-recall.ts): creates
   * it due `dueDate`, with its reminder workflow, under the row lock of the completed one. Idempotent: when the
   * re-assessment exists (previous_assessment_id is unique), that one is returned with `created: false`.
   * @throws AppError `not_found`
   */
  async function recall(uow: UnitOfWork, previousId: string, dueDate: string, cadenceDays: number) {
    const previous = await lock(uow, previousId)
    if (previous.next) return { created: false, assessment: await get(uow, previous.next.id) }
    const assessment = await insert(
      uow,
      {
        childId: previous.childId,
        providerId: previous.providerId ?? undefined,
        instrument: previous.instrument,
        dueDate,
        reassessmentCadenceDays: cadenceDays,
      },
      previous.id
    )
    return { created: true, assessment }
  }

  return { create, get, list, patch, cancel, complete, listNotifications, recall }
}

export type AssessmentService = ReturnType<typeof createAssessmentService>
