/**
 * @module The database side of the early-intervention check-in: loads a child's enrolment, keeps the plan row the API
 * shows (`early_intervention_plans`: deadlines, next check-in, the 45-day exception) in step with it, and records the
 * notices the workflow raises as care notifications. Used by the workflow's activities; every function runs in a unit
 * of work of the child's tenant.
 */
import type { Prisma } from '../../generated/prisma/client.ts'
import type { UnitOfWork } from '../../infra/unit-of-work.ts'
import { EARLY_INTERVENTION_KIND } from '../../common/early-intervention/early-intervention-contract.ts'
import { localDateOf, startOfLocalDay } from '../assessments/due-day.ts'
import {
  openNotifications,
  recordCareNotification,
  settleNotifications,
  type NotificationSubject,
} from '../care-notifications/care-notifications.ts'
import { EI_FACT_COLUMNS, eiFactsOf } from './ei-facts.ts'
import type { EiPolicy } from '../../common/early-intervention/ei-policy.ts'
import {
  noticeSettled,
  noticesWorthSending,
  planEarlyIntervention,
  type ClosedReason,
  type EiFacts,
  type EiPlan,
  type Notice,
} from '../../common/early-intervention/ei-plan.ts'

const dateOf = (value: Date | null) => (value ? value.toISOString().slice(0, 10) : null)
const toDate = (value: string | null) => (value ? new Date(`${value}T00:00:00.000Z`) : null)
const subjectOf = (childId: string): NotificationSubject => ({ workflowKind: EARLY_INTERVENTION_KIND, childId })
const dedupeKey = (childId: string, notice: Notice) => `${EARLY_INTERVENTION_KIND}:${childId}:${notice.key}`

/** Closed for a reason the plan cannot see: an operator cancelled the workflow. */
export type PlanCloseReason = ClosedReason | 'CANCELLED'

interface Loaded {
  facts: EiFacts
  timeZone: string
}

/** The child's enrolment facts and the centre's zone, or undefined when the child does not exist. */
async function loadFacts({ tx, tenantId }: UnitOfWork, childId: string, lock: boolean): Promise<Loaded | undefined> {
  // FOR SHARE: a PATCH of the child (which locks the row FOR UPDATE) waits for the notice being recorded, or the
  // notice is recorded against the PATCH's committed dates; never against dates that are about to change.
  if (lock) await tx.$queryRaw`SELECT id FROM children WHERE id = ${childId} AND tenant_id = ${tenantId} FOR SHARE`
  const child = await tx.child.findFirst({
    where: { id: childId, tenantId },
    select: { ...EI_FACT_COLUMNS, location: { select: { timeZone: true } } },
  })
  if (!child) return undefined
  return {
    timeZone: child.location?.timeZone ?? 'UTC',
    facts: eiFactsOf(child),
  }
}

/**
 * Closes the plan: the row says why, the exception (tied to the closed referral) goes, and OPEN notifications are
 * cancelled — except an exit notice when the child did exit, which that answered.
 */
export async function closePlan(uow: UnitOfWork, childId: string, reason: PlanCloseReason, now: Date): Promise<void> {
  const exists = await uow.tx.earlyInterventionPlan.findFirst({
    where: { childId, tenantId: uow.tenantId },
    select: { childId: true },
  })
  if (exists) {
    await uow.tx.earlyInterventionPlan.update({
      where: { childId },
      data: {
        status: 'CLOSED',
        closedReason: reason,
        nextCheckInDate: null,
        timelineException: null,
        timelineExceptionNote: null,
        timelineExceptionRecordedAt: null,
      },
    })
  }
  if (reason === 'EXITED') {
    const exits = (await openNotifications(uow, subjectOf(childId)))
      .filter((n) => n.kind === 'EXIT_DUE')
      .map((n) => n.id)
    await settleNotifications(uow, subjectOf(childId), 'RESOLVED', now, exits)
  }
  await settleNotifications(uow, subjectOf(childId), 'CANCELLED', now)
}

/** Writes the deadlines the API shows and resolves notifications whose deadline was met, excepted or moved. */
async function storePlan(
  uow: UnitOfWork,
  childId: string,
  plan: Extract<EiPlan, { state: 'ACTIVE' }>,
  today: string,
  now: Date
) {
  const row = {
    status: 'ACTIVE' as const,
    closedReason: null,
    deadlines: plan.deadlines as unknown as Prisma.InputJsonArray,
    nextCheckInDate: toDate(plan.nextCheckIn),
    computedFor: toDate(today),
  }
  await uow.tx.earlyInterventionPlan.upsert({
    where: { childId },
    create: { childId, tenantId: uow.tenantId, ...row },
    update: row,
  })
  const settled = (await openNotifications(uow, subjectOf(childId)))
    .filter((n) => {
      const series = (n.details as { series?: string }).series ?? ''
      return n.dueDate !== null && noticeSettled(plan, series, dateOf(n.dueDate)!)
    })
    .map((n) => n.id)
  await settleNotifications(uow, subjectOf(childId), 'RESOLVED', now, settled)
}

/** The notices worth sending that are not recorded yet, in order. */
async function pendingNotices(uow: UnitOfWork, childId: string, notices: Notice[]) {
  if (notices.length === 0) return []
  const recorded = await uow.tx.careNotification.findMany({
    where: { tenantId: uow.tenantId, dedupeKey: { in: notices.map((n) => dedupeKey(childId, n)) } },
    select: { dedupeKey: true },
  })
  const done = new Set(recorded.map((r) => r.dedupeKey))
  return notices.filter((n) => !done.has(dedupeKey(childId, n)))
}

export type RefreshResult =
  | { state: 'CLOSED'; reason: ClosedReason }
  | { state: 'ACTIVE'; next: { key: string; kind: Notice['kind']; at: number } | null }

/**
 * Recomputes the child's plan as of the workflow's plan time, stores it, and reports the next notice to send.
 * @param asOf - the workflow's plan time (epoch ms); the centre's calendar day at that instant is "today"
 * @param now - the real time, for the rows' timestamps
 */
export async function refreshPlan(
  uow: UnitOfWork,
  childId: string,
  asOf: number,
  policy: EiPolicy,
  now: Date
): Promise<RefreshResult> {
  const loaded = await loadFacts(uow, childId, false)
  if (!loaded) return { state: 'CLOSED', reason: 'NOT_ENROLLED' }
  const today = localDateOf(new Date(asOf), loaded.timeZone)
  const plan = planEarlyIntervention(loaded.facts, today, policy)
  if (plan.state === 'CLOSED') {
    await closePlan(uow, childId, plan.reason, now)
    return plan
  }
  await storePlan(uow, childId, plan, today, now)
  const [next] = await pendingNotices(uow, childId, noticesWorthSending(plan.notices, today, policy))
  return {
    state: 'ACTIVE',
    next: next ? { key: next.key, kind: next.kind, at: startOfLocalDay(next.on, loaded.timeZone).getTime() } : null,
  }
}

/**
 * Records one notice, if it is still worth sending as of `asOf` under the child's current (locked) record.
 * @returns RECORDED; DUPLICATE (recorded before); STALE (the plan no longer has it due); CLOSED (no longer enrolled)
 */
export async function recordNotice(
  uow: UnitOfWork,
  childId: string,
  key: string,
  asOf: number,
  policy: EiPolicy,
  now: Date
): Promise<'RECORDED' | 'DUPLICATE' | 'STALE' | 'CLOSED'> {
  const loaded = await loadFacts(uow, childId, true)
  if (!loaded) return 'CLOSED'
  const today = localDateOf(new Date(asOf), loaded.timeZone)
  const plan = planEarlyIntervention(loaded.facts, today, policy)
  if (plan.state === 'CLOSED') return 'CLOSED'
  const notice = noticesWorthSending(plan.notices, today, policy).find((n) => n.key === key)
  if (!notice || notice.on > today) return 'STALE'
  const outcome = await recordCareNotification(uow, {
    workflowKind: EARLY_INTERVENTION_KIND,
    kind: notice.kind,
    childId,
    dueDate: notice.dueDate,
    details: { series: notice.series, daysFromDue: notice.daysFromDue },
    dedupeKey: dedupeKey(childId, notice),
  })
  if (outcome === 'RECORDED' && notice.kind === 'FAMILY_CHECK_IN') {
    // A check-in is superseded by the next one: the earlier asks are no longer the current ask.
    const earlier = (await openNotifications(uow, subjectOf(childId)))
      .filter((n) => n.kind === 'FAMILY_CHECK_IN' && n.dueDate !== null && dateOf(n.dueDate)! < notice.dueDate)
      .map((n) => n.id)
    await settleNotifications(uow, subjectOf(childId), 'RESOLVED', now, earlier)
  }
  return outcome
}
