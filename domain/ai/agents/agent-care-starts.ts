/**
 * @module The `start_care_workflow` action: starts (or finds running) one of the care workflows for the run's
 * record, through the same domain functions the API uses, so the start goes through the workflow outbox and the
 * care workflow's own rules decide (a child not enrolled in early intervention gets no check-in).
 */
import type { Client } from '@temporalio/client'
import type { Logger } from '../../../infra/logger.ts'
import type { UnitOfWork } from '../../../infra/unit-of-work.ts'
import { ASSESSMENT_REMINDER_KIND } from '../../../common/assessments/assessment-reminder-contract.ts'
import { childProgressWorkflowId } from '../../../common/child-progress/child-progress-contract.ts'
import { EARLY_INTERVENTION_KIND } from '../../../common/early-intervention/early-intervention-contract.ts'
import { createAssessmentWorkflowCalls } from '../../assessments/assessment-workflow-calls.ts'
import { createEiWorkflowCalls } from '../../early-intervention/ei-workflow-calls.ts'
import { createProgressFollowUps } from '../../child-progress/progress-follow-ups.ts'
import type { WorkflowOutbox } from '../../workflow-runs/workflow-outbox.ts'
import type { CareWorkflowToStart } from './action-catalogue.ts'
import type { AgentSubject } from './agent-context.ts'
import { DAY_MS } from '../../../common/time/calendar.ts'

export interface CareStartDeps {
  outbox: WorkflowOutbox
  temporal: Client
  logger: Logger
  taskQueue: string
  /** CARE_WORKFLOW_DAY_MS and CHILD_PROGRESS_INTERVAL_DAYS of the deployment (defaults: a real day, 30 days). */
  dayMs?: number
  progressIntervalDays?: number
}

export type CareStartOutcome =
  | { outcome: 'STARTED' | 'ALREADY_STARTED'; workflow: CareWorkflowToStart; recordId: string }
  | { outcome: 'SKIPPED'; reason: string }

/** Starts `kind` for the subject in the unit of work; the start is dispatched after commit. */
export async function startCareWorkflow(
  uow: UnitOfWork,
  deps: CareStartDeps,
  kind: CareWorkflowToStart,
  subject: AgentSubject
): Promise<CareStartOutcome> {
  if (kind === ASSESSMENT_REMINDER_KIND) {
    if (!subject.assessmentId) return { outcome: 'SKIPPED', reason: 'The event names no assessment.' }
    const assessment = await uow.tx.assessment.findFirst({
      where: { id: subject.assessmentId, tenantId: uow.tenantId },
    })
    if (!assessment) return { outcome: 'SKIPPED', reason: `Assessment ${subject.assessmentId} not found.` }
    await createAssessmentWorkflowCalls(deps).assessmentChanged(uow, assessment)
    return { outcome: 'STARTED', workflow: kind, recordId: assessment.id }
  }
  if (!subject.childId) return { outcome: 'SKIPPED', reason: 'The event names no child.' }
  const child = await uow.tx.child.findFirst({
    where: { id: subject.childId, tenantId: uow.tenantId },
    select: { id: true, eiReferralDate: true, eiExitDate: true, archivedAt: true },
  })
  if (!child) return { outcome: 'SKIPPED', reason: `Child ${subject.childId} not found.` }
  if (child.archivedAt) return { outcome: 'SKIPPED', reason: 'The child is archived.' }
  const dayMs = deps.dayMs ?? DAY_MS
  if (kind === EARLY_INTERVENTION_KIND) {
    if (child.eiReferralDate === null || child.eiExitDate !== null) {
      return { outcome: 'SKIPPED', reason: 'The child is not enrolled in early intervention.' }
    }
    // Re-plans a running check-in, or starts it (the outbox reuses a running workflow).
    await createEiWorkflowCalls({ ...deps, ...(dayMs !== DAY_MS ? { dayMs } : {}) }).childChanged(uow, child)
    return { outcome: 'STARTED', workflow: kind, recordId: child.id }
  }
  // Registration starts the follow-up; its outbox row says it was started once (a running workflow is never doubled).
  const started = await uow.tx.workflowOutbox.findFirst({
    where: { workflowId: childProgressWorkflowId(uow.tenantId, child.id) },
    select: { id: true },
  })
  if (started) return { outcome: 'ALREADY_STARTED', workflow: kind, recordId: child.id }
  await createProgressFollowUps({ ...deps, intervalDays: deps.progressIntervalDays ?? 30, dayMs }).childRegistered(
    uow,
    child.id
  )
  return { outcome: 'STARTED', workflow: kind, recordId: child.id }
}
