/**
 * @module The database side of the child progress follow-up: reads a child's signed SOAP notes and completed
 * assessments (the sessions, notes and assessments tables), stores the period's summary as a progress report, and
 * keeps exactly one OPEN follow-up notification per child while active goals are stalled or declining (the newest
 * report's follow-up supersedes the earlier one; a report without stalled goals resolves it).
 */
import type { Prisma } from '../../generated/prisma/client.ts'
import type { UnitOfWork } from '../../infra/unit-of-work.ts'
import { CHILD_PROGRESS_KIND } from '../../common/child-progress/child-progress-contract.ts'
import { goalsOf } from '../children/child-service.ts'
import {
  openNotifications,
  recordCareNotification,
  settleNotifications,
} from '../care-notifications/care-notifications.ts'
import { newId } from '../ids.ts'
import type { ProgressPolicy } from '../../common/child-progress/progress-rules.ts'
import { summariseProgress, type SignedNoteData } from './progress-summary.ts'

/** The `kind` of the follow-up notification (a notification's kind, not a workflow's). */
export const PROGRESS_FOLLOW_UP_NOTIFICATION = 'PROGRESS_FOLLOW_UP'

/** Default look-back of a goal's trend: half a year of sessions. */
export const DEFAULT_LOOKBACK_DAYS = 180

/** At most this many signed notes feed one summary (a child seen daily for the whole look-back stays far below). */
const MAX_NOTES = 1_000

export interface RecordSummaryInput {
  childId: string
  trigger: 'SCHEDULED' | 'REQUESTED'
  /** Epoch ms. */
  periodStart: number
  periodEnd: number
  /** Notes signed this long before the period's end count towards a goal's trend. */
  lookbackMs: number
  policy: ProgressPolicy
}

export interface RecordSummaryOutcome {
  reportId: string | null
  stalledGoals: number
  followUpId: string | null
}

/** ACTIVE, ARCHIVED, or MISSING for a child that does not exist. */
export async function childProgressStatus({ tx, tenantId }: UnitOfWork, childId: string) {
  const child = await tx.child.findFirst({ where: { id: childId, tenantId }, select: { archivedAt: true } })
  if (!child) return 'MISSING' as const
  return child.archivedAt ? ('ARCHIVED' as const) : ('ACTIVE' as const)
}

async function signedNotes(
  { tx, tenantId }: UnitOfWork,
  childId: string,
  from: Date,
  to: Date
): Promise<SignedNoteData[]> {
  const notes = await tx.sessionNote.findMany({
    where: { tenantId, status: 'SIGNED', signedAt: { gt: from, lte: to }, session: { childId } },
    select: { sessionId: true, signedAt: true, objective: true, session: { select: { scheduledStartsAt: true } } },
    orderBy: [{ signedAt: 'desc' }, { id: 'desc' }],
    take: MAX_NOTES,
  })
  return notes.map((note) => ({
    sessionId: note.sessionId,
    sessionAt: note.session.scheduledStartsAt.toISOString(),
    signedAt: note.signedAt!.toISOString(),
    goals: ((note.objective as { goals?: SignedNoteData['goals'] }).goals ?? []).map((g) => ({
      goalId: g.goalId,
      accuracyPercent: g.accuracyPercent,
      cueingLevel: g.cueingLevel,
    })),
  }))
}

/**
 * Makes and stores the summary of a period. Idempotent: a period's report (per trigger) is recorded once, and a
 * retry answers the report recorded before. A scheduled period with neither signed notes nor assessments records
 * nothing (reportId null): there is no progress to report.
 */
export async function recordProgressSummary(
  uow: UnitOfWork,
  input: RecordSummaryInput,
  now: Date
): Promise<RecordSummaryOutcome> {
  const { tx, tenantId } = uow
  // One summary of a child at a time (the API's and the workflow's): the newest report settles the follow-ups alone.
  await tx.$queryRaw`SELECT id FROM children WHERE id = ${input.childId} AND tenant_id = ${tenantId} FOR UPDATE`
  const dedupeKey = `${input.childId}:${input.trigger}:${input.periodEnd}`
  const existing = await tx.childProgressReport.findFirst({
    where: { tenantId, dedupeKey },
    select: { id: true, stalledGoalIds: true },
  })
  if (existing) {
    const followUp = await tx.careNotification.findFirst({
      where: { tenantId, dedupeKey: `${CHILD_PROGRESS_KIND}:${existing.id}` },
      select: { id: true },
    })
    return { reportId: existing.id, stalledGoals: existing.stalledGoalIds.length, followUpId: followUp?.id ?? null }
  }
  const child = await tx.child.findFirst({ where: { id: input.childId, tenantId }, select: { goals: true } })
  if (!child) return { reportId: null, stalledGoals: 0, followUpId: null }

  const periodStart = new Date(input.periodStart)
  const periodEnd = new Date(input.periodEnd)
  const notes = await signedNotes(
    uow,
    input.childId,
    new Date(input.periodEnd - Math.max(input.lookbackMs, input.periodEnd - input.periodStart)),
    periodEnd
  )
  const assessments = await tx.assessment.findMany({
    where: { tenantId, childId: input.childId, status: 'COMPLETED', completedAt: { gt: periodStart, lte: periodEnd } },
    select: { id: true, instrument: true, completedAt: true },
  })
  const activeGoalIds = goalsOf(child)
    .filter((g) => g.status === 'ACTIVE')
    .map((g) => g.id)
  const summary = summariseProgress(
    { start: periodStart.toISOString(), end: periodEnd.toISOString() },
    notes,
    assessments.map((a) => ({
      assessmentId: a.id,
      instrument: a.instrument,
      completedAt: a.completedAt!.toISOString(),
    })),
    activeGoalIds,
    input.policy
  )
  if (input.trigger === 'SCHEDULED' && summary.signedNotesCount === 0 && summary.assessments.length === 0) {
    return { reportId: null, stalledGoals: 0, followUpId: null }
  }

  const report = await tx.childProgressReport.create({
    data: {
      id: newId('progressReport'),
      tenantId,
      childId: input.childId,
      trigger: input.trigger,
      periodStart,
      periodEnd,
      sessionsCount: summary.sessionsCount,
      signedNotesCount: summary.signedNotesCount,
      goals: summary.goals as unknown as Prisma.InputJsonArray,
      assessments: summary.assessments as unknown as Prisma.InputJsonArray,
      stalledGoalIds: summary.stalledGoalIds,
      dedupeKey,
    },
    select: { id: true },
  })
  const subject = { workflowKind: CHILD_PROGRESS_KIND, childId: input.childId } as const
  // The newest report decides: earlier follow-ups are resolved (answered by this report, or superseded by its own).
  const earlier = (await openNotifications(uow, subject))
    .filter((n) => n.kind === PROGRESS_FOLLOW_UP_NOTIFICATION)
    .map((n) => n.id)
  await settleNotifications(uow, subject, 'RESOLVED', now, earlier)
  if (summary.stalledGoalIds.length === 0) return { reportId: report.id, stalledGoals: 0, followUpId: null }

  // Addressed to the provider of the child's latest signed session: the one who can change the plan.
  const latest = notes.reduce<SignedNoteData | undefined>(
    (a, b) => (!a || b.sessionAt > a.sessionAt ? b : a),
    undefined
  )
  const session = latest
    ? await tx.session.findFirst({ where: { id: latest.sessionId, tenantId }, select: { providerId: true } })
    : null
  const followUpKey = `${CHILD_PROGRESS_KIND}:${report.id}`
  await recordCareNotification(uow, {
    workflowKind: CHILD_PROGRESS_KIND,
    kind: PROGRESS_FOLLOW_UP_NOTIFICATION,
    childId: input.childId,
    ...(session ? { providerId: session.providerId } : {}),
    details: { reportId: report.id, goalIds: summary.stalledGoalIds },
    dedupeKey: followUpKey,
  })
  const followUp = await tx.careNotification.findFirst({
    where: { tenantId, dedupeKey: followUpKey },
    select: { id: true },
  })
  return { reportId: report.id, stalledGoals: summary.stalledGoalIds.length, followUpId: followUp?.id ?? null }
}

/** Stops follow-ups (the workflow was cancelled): open follow-ups are cancelled. */
export async function closeProgressFollowUps(uow: UnitOfWork, childId: string, now: Date): Promise<void> {
  await settleNotifications(uow, { workflowKind: CHILD_PROGRESS_KIND, childId }, 'CANCELLED', now)
}
