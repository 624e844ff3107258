/**
 * @module What the API does with a child's early-intervention plan: shows it (the deadlines and next check-in the
 * check-in workflow computed, the 45-day exception) and records or withdraws a documented exception to the 45-day
 * timeline (34 CFR §303.310(b)), and lists the notices the workflow raised. A change is announced to the workflow after
 * commit (ei-workflow-calls.ts).
 */
import type { UnitOfWork } from '../../infra/unit-of-work.ts'
import { listCareNotifications, type NotificationListQuery } from '../care-notifications/care-notifications.ts'
import { invalidStateTransition, notFound } from '../errors.ts'
import {
  EARLY_INTERVENTION_KIND,
  earlyInterventionWorkflowId,
} from '../../common/early-intervention/early-intervention-contract.ts'
import type { Deadline, TimelineException } from '../../common/early-intervention/ei-plan.ts'
import { DEFAULT_EI_POLICY } from '../../common/early-intervention/ei-policy.ts'
import { addDays } from '../../common/time/calendar.ts'
import type { EarlyInterventionWorkflowCalls } from './ei-workflow-calls.ts'

export interface TimelineExceptionInput {
  reason: TimelineException
  /** Where the record documents the circumstances or the attempts to obtain consent (required by §303.310(b)). */
  note: string
}

export interface EarlyInterventionView {
  childId: string
  enrolled: boolean
  /** NOT_STARTED until the workflow first computes the plan (moments after enrolment). */
  status: 'ACTIVE' | 'CLOSED' | 'NOT_STARTED'
  closedReason: string | null
  deadlines: Deadline[]
  nextCheckInDate: string | null
  computedFor: string | null
  timelineException: { reason: TimelineException; note: string; recordedAt: string } | null
  workflowId: string
  updatedAt: string | null
}

const dateOf = (value: Date | null) => (value ? value.toISOString().slice(0, 10) : null)

async function loadChild({ tx, tenantId }: UnitOfWork, childId: string) {
  const child = await tx.child.findFirst({
    where: { id: childId, tenantId },
    select: {
      id: true,
      eiReferralDate: true,
      eiInitialIfspDate: true,
      eiExitDate: true,
      archivedAt: true,
      earlyInterventionPlan: true,
    },
  })
  if (!child) throw notFound('child', childId)
  return child
}

/** The child's plan as the workflow last computed it. @throws AppError `not_found` */
export async function getEarlyInterventionView(uow: UnitOfWork, childId: string): Promise<EarlyInterventionView> {
  const child = await loadChild(uow, childId)
  const plan = child.earlyInterventionPlan
  return {
    childId: child.id,
    enrolled: child.eiReferralDate !== null && child.eiExitDate === null && child.archivedAt === null,
    status: plan ? plan.status : 'NOT_STARTED',
    closedReason: plan?.closedReason ?? null,
    deadlines: (plan?.deadlines ?? []) as unknown as Deadline[],
    nextCheckInDate: dateOf(plan?.nextCheckInDate ?? null),
    computedFor: dateOf(plan?.computedFor ?? null),
    timelineException:
      plan?.timelineException && plan.timelineExceptionRecordedAt
        ? {
            reason: plan.timelineException,
            note: plan.timelineExceptionNote ?? '',
            recordedAt: plan.timelineExceptionRecordedAt.toISOString(),
          }
        : null,
    workflowId: earlyInterventionWorkflowId(uow.tenantId, child.id),
    updatedAt: plan?.updatedAt.toISOString() ?? null,
  }
}

/**
 * A page of the notices the child's early-intervention workflow raised (deadlines due, check-ins).
 * @throws AppError `not_found` for a child the tenant does not have
 */
export async function listEarlyInterventionNotifications(
  uow: UnitOfWork,
  childId: string,
  query: NotificationListQuery
) {
  const child = await uow.tx.child.findFirst({ where: { id: childId, tenantId: uow.tenantId }, select: { id: true } })
  if (!child) throw notFound('child', childId)
  return listCareNotifications(uow, { workflowKind: EARLY_INTERVENTION_KIND, childId }, query)
}

/** The exception changes the plan: the workflow re-reads it (and is started if it is not running). */
async function announce(uow: UnitOfWork, sync: Pick<EarlyInterventionWorkflowCalls, 'childChanged'>, childId: string) {
  const child = await uow.tx.child.findFirst({
    where: { id: childId, tenantId: uow.tenantId },
    select: { id: true, eiReferralDate: true, eiExitDate: true, archivedAt: true },
  })
  if (child) await sync.childChanged(uow, child)
}

/**
 * Records (or replaces) a documented exception to the 45-day timeline and announces it to the workflow. Refused for a
 * child not enrolled, and when the initial IFSP meeting was held within the limit (there is no delay to explain).
 * @param sync - tells the child's workflow (api/compose-services.ts builds it once)
 * @throws AppError `not_found`, `invalid_state_transition`
 */
export async function recordTimelineException(
  uow: UnitOfWork,
  sync: Pick<EarlyInterventionWorkflowCalls, 'childChanged'>,
  childId: string,
  input: TimelineExceptionInput,
  now: Date
) {
  await uow.tx.$queryRaw`SELECT id FROM children WHERE id = ${childId} AND tenant_id = ${uow.tenantId} FOR UPDATE`
  const child = await loadChild(uow, childId)
  if (child.eiReferralDate === null || child.eiExitDate !== null || child.archivedAt !== null) {
    throw invalidStateTransition('The child is not enrolled in early intervention.')
  }
  const limit = addDays(dateOf(child.eiReferralDate)!, DEFAULT_EI_POLICY.initialIfspDays)
  const held = dateOf(child.eiInitialIfspDate)
  if (held !== null && held <= limit) {
    throw invalidStateTransition(
      'The initial IFSP meeting was held within 45 days of the referral: there is no delay to except.'
    )
  }
  const exception = {
    timelineException: input.reason,
    timelineExceptionNote: input.note,
    timelineExceptionRecordedAt: now,
  }
  await uow.tx.earlyInterventionPlan.upsert({
    where: { childId },
    create: { childId, tenantId: uow.tenantId, ...exception },
    update: exception,
  })
  const plan = await getEarlyInterventionView(uow, childId)
  await announce(uow, sync, childId)
  return plan
}

/**
 * Withdraws the exception (the 45-day clock applies again) and announces it to the workflow. Idempotent.
 * @throws AppError `not_found`
 */
export async function withdrawTimelineException(
  uow: UnitOfWork,
  sync: Pick<EarlyInterventionWorkflowCalls, 'childChanged'>,
  childId: string
) {
  await loadChild(uow, childId)
  await uow.tx.earlyInterventionPlan.updateMany({
    where: { childId, tenantId: uow.tenantId },
    data: { timelineException: null, timelineExceptionNote: null, timelineExceptionRecordedAt: null },
  })
  const plan = await getEarlyInterventionView(uow, childId)
  await announce(uow, sync, childId)
  return plan
}
