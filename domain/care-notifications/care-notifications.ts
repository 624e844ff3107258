/**
 * @module Notifications the care workflows raise (early-intervention check-in, child progress follow-up, provider
 * onboarding). No e-mail or SMS provider exists, so the `care_notifications` row *is* the notification: the API shows
 * it to whoever must act. A notification is OPEN until what it asks for happens (RESOLVED) or its workflow closes
 * (CANCELLED). Recording is idempotent on a dedupe key, so a retried activity never notifies twice.
 */
import type { Prisma } from '../../generated/prisma/client.ts'
import type { CareNotificationStatus } from '../../generated/prisma/enums.ts'
import type { UnitOfWork } from '../../infra/unit-of-work.ts'
import { APPOINTMENT_FOLLOW_UP_KIND } from '../../common/appointments/appointment-follow-up-contract.ts'
import { APPOINTMENT_WORKFLOW_KIND } from '../../common/appointments/appointment-workflow-contract.ts'
import { CHILD_PROGRESS_KIND } from '../../common/child-progress/child-progress-contract.ts'
import { EARLY_INTERVENTION_KIND } from '../../common/early-intervention/early-intervention-contract.ts'
import { LEAD_QUALIFICATION_KIND } from '../../common/leads/lead-qualification-contract.ts'
import { PROVIDER_ONBOARDING_KIND } from '../../common/provider-onboarding/provider-onboarding-contract.ts'
import { newId } from '../ids.ts'
import { findPage, parseList, type SortParam } from '../listing.ts'

/** The workflows whose notifications the care routes list (`GET .../notifications`): the kinds the API shows. */
export const LISTED_CARE_WORKFLOW_KINDS = [
  EARLY_INTERVENTION_KIND,
  CHILD_PROGRESS_KIND,
  PROVIDER_ONBOARDING_KIND,
  LEAD_QUALIFICATION_KIND,
] as const

/**
 * The workflows that record care notifications, each kind taken from its workflow's contract so it is spelled once.
 * The booking and appointment follow-up workflows record notifications too, but no route lists them.
 */
export type CareWorkflowKind =
  (typeof LISTED_CARE_WORKFLOW_KINDS)[number] | typeof APPOINTMENT_WORKFLOW_KIND | typeof APPOINTMENT_FOLLOW_UP_KIND

/** Ids, kinds and numbers only: the details are shown to API clients and never carry clinical text. */
export type NotificationDetails = Record<string, string | number | boolean | string[] | null>

export interface CareNotificationInput {
  workflowKind: CareWorkflowKind
  kind: string
  childId?: string
  providerId?: string
  /** YYYY-MM-DD: the deadline the notification is about, when it has one. */
  dueDate?: string
  details?: NotificationDetails
  /** Unique per tenant: the same key is never recorded twice. */
  dedupeKey: string
  /**
   * When the condition the notification reports was found (default: when the row is written). A notification that
   * checked something first is stamped with the moment before that check, the one that makes it legitimate.
   */
  createdAt?: Date
}

/**
 * Records a notification unless one with the same dedupe key exists.
 * @returns RECORDED, or DUPLICATE when it was recorded before (a retried activity)
 */
export async function recordCareNotification(
  uow: UnitOfWork,
  input: CareNotificationInput
): Promise<'RECORDED' | 'DUPLICATE'> {
  const { count } = await uow.tx.careNotification.createMany({
    data: [
      {
        id: newId('careNotification'),
        tenantId: uow.tenantId,
        workflowKind: input.workflowKind,
        kind: input.kind,
        childId: input.childId ?? null,
        providerId: input.providerId ?? null,
        dueDate: input.dueDate ? new Date(`${input.dueDate}T00:00:00.000Z`) : null,
        details: input.details ?? {},
        dedupeKey: input.dedupeKey,
        ...(input.createdAt ? { createdAt: input.createdAt } : {}),
      },
    ],
    skipDuplicates: true,
  })
  return count === 1 ? 'RECORDED' : 'DUPLICATE'
}

/** Which open notifications to settle. */
export interface NotificationSubject {
  workflowKind: CareWorkflowKind
  childId?: string
  providerId?: string
}

const subjectWhere = (uow: UnitOfWork, subject: NotificationSubject): Prisma.CareNotificationWhereInput => ({
  tenantId: uow.tenantId,
  workflowKind: subject.workflowKind,
  ...(subject.childId ? { childId: subject.childId } : {}),
  ...(subject.providerId ? { providerId: subject.providerId } : {}),
})

/** The subject's OPEN notifications (what the settling rules look at). */
export function openNotifications(uow: UnitOfWork, subject: NotificationSubject) {
  return uow.tx.careNotification.findMany({
    where: { ...subjectWhere(uow, subject), status: 'OPEN' },
    select: { id: true, kind: true, dueDate: true, details: true, createdAt: true },
    orderBy: [{ createdAt: 'asc' }, { id: 'asc' }],
  })
}

/**
 * Moves OPEN notifications to RESOLVED or CANCELLED: all of the subject's, or only the given ids.
 * @returns how many changed
 */
export async function settleNotifications(
  uow: UnitOfWork,
  subject: NotificationSubject,
  status: Exclude<CareNotificationStatus, 'OPEN'>,
  now: Date,
  ids?: string[]
): Promise<number> {
  if (ids && ids.length === 0) return 0
  const { count } = await uow.tx.careNotification.updateMany({
    where: { ...subjectWhere(uow, subject), status: 'OPEN', ...(ids ? { id: { in: ids } } : {}) },
    data: { status, resolvedAt: now },
  })
  return count
}

export const NOTIFICATION_SORTS = ['createdAt'] as const

export interface NotificationListQuery {
  limit: number
  cursor?: string
  sort: SortParam<(typeof NOTIFICATION_SORTS)[number]>
  status?: CareNotificationStatus
  kind?: string
}

/** A page of a subject's notifications, newest first by default. */
export function listCareNotifications(uow: UnitOfWork, subject: NotificationSubject, query: NotificationListQuery) {
  return listNotificationsWhere(uow, subjectWhere(uow, subject), query)
}

/**
 * A page of the notifications `where` selects (a subject's, a lead's), filtered by the query's status and kind.
 * @param where - the notifications to list from, scoped to the caller's tenant
 */
export function listNotificationsWhere(
  uow: UnitOfWork,
  where: Prisma.CareNotificationWhereInput,
  query: NotificationListQuery
) {
  const filters: Prisma.CareNotificationWhereInput[] = [
    where,
    ...(query.status ? [{ status: query.status }] : []),
    ...(query.kind ? [{ kind: query.kind }] : []),
  ]
  return findPage(parseList(query), filters, (args) => uow.tx.careNotification.findMany(args))
}

export type CareNotificationRow = Awaited<ReturnType<typeof listCareNotifications>>['data'][number]
