/**
 * @module Loads one child's goals, signed notes (their objective goal measures only: no narrative text) and completed
 * assessments inside the request's unit of work, and computes the insights of ./insight-rules.ts.
 */
import type { UnitOfWork } from '../../../infra/unit-of-work.ts'
import { notFound } from '../../errors.ts'
import { DEFAULT_PROGRESS_POLICY } from '../../../common/child-progress/progress-rules.ts'
import { childInsights, type InsightAssessment, type InsightGoal, type InsightNote } from './insight-rules.ts'

/** @throws AppError `not_found` for a child not the tenant's */
export async function loadChildInsights(uow: UnitOfWork, childId: string, now: Date) {
  const { tx, tenantId } = uow
  const child = await tx.child.findFirst({ where: { id: childId, tenantId }, select: { id: true, goals: true } })
  if (!child) throw notFound('child', childId)
  const notes = await tx.sessionNote.findMany({
    where: { tenantId, status: 'SIGNED', session: { childId, tenantId } },
    select: { id: true, objective: true, session: { select: { id: true, scheduledStartsAt: true } } },
  })
  const assessments = await tx.assessment.findMany({
    where: { tenantId, childId, status: 'COMPLETED', completedAt: { not: null } },
    select: { id: true, instrument: true, completedAt: true, scores: true },
  })
  const insights = childInsights(
    // A JSON column: it can hold a JSON null.
    (child.goals as unknown as InsightGoal[] | null) ?? [],
    notes.map((n): InsightNote => ({
      noteId: n.id,
      sessionId: n.session.id,
      sessionAt: n.session.scheduledStartsAt.toISOString(),
      goals: (n.objective as { goals?: InsightNote['goals'] } | null)?.goals ?? [],
    })),
    assessments.map((a): InsightAssessment => ({
      assessmentId: a.id,
      instrument: a.instrument,
      completedAt: a.completedAt!.toISOString(),
      scores: (a.scores ?? []) as unknown as InsightAssessment['scores'],
    })),
    DEFAULT_PROGRESS_POLICY
  )
  return { childId, generatedAt: now.toISOString(), policy: DEFAULT_PROGRESS_POLICY, ...insights }
}
