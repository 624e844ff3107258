/**
 * @module Keeps an assessment's reminder workflow in step with the record. The workflow is started through the
 * workflow outbox (in the transaction of the change, so it exists exactly when the assessment has a due date) the
 * first time an open assessment has a due date; every later change is announced by a signal after commit, and the
 * workflow reloads the assessment from the database. The signal is best effort: the workflow also reloads before
 * every step and at least once a day, so a lost signal delays its reaction but never leads it astray.
 */
import { WorkflowNotFoundError, type Client } from '@temporalio/client'
import type { Assessment } from '../../generated/prisma/client.ts'
import type { Logger } from '../../infra/logger.ts'
import type { UnitOfWork } from '../../infra/unit-of-work.ts'
import {
  ASSESSMENT_REMINDER_KIND,
  ASSESSMENT_REMINDER_WORKFLOW,
  assessmentChangedSignal,
  assessmentReminderWorkflowId,
  type AssessmentReminderInput,
} from '../../common/assessments/assessment-reminder-contract.ts'
import type { WorkflowOutbox } from '../workflow-runs/workflow-outbox.ts'
import { isOpen } from './assessment-rules.ts'
import type { ReminderTiming } from '../../common/assessments/reminder-plan.ts'

export interface AssessmentWorkflowCallsDeps {
  outbox: WorkflowOutbox
  temporal: Client
  logger: Logger
  /** Schedule overrides passed to every workflow started (tests shorten the day). */
  timing?: Partial<ReminderTiming>
  /** Longest the after-commit signal may delay the response. */
  signalTimeoutMs?: number
}

export interface AssessmentWorkflowCalls {
  /**
   * Called in the unit of work of every change to an assessment (create, due-date change, completion, cancellation).
   * @param assessment - the assessment as it is after the change
   */
  assessmentChanged(uow: UnitOfWork, assessment: Assessment): Promise<void>
}

/** Creates the reminder scheduler over the outbox and the Temporal client. */
export function createAssessmentWorkflowCalls(deps: AssessmentWorkflowCallsDeps): AssessmentWorkflowCalls {
  const signalTimeoutMs = deps.signalTimeoutMs ?? 3000

  async function signal(workflowId: string): Promise<void> {
    try {
      await deps.temporal.withDeadline(Date.now() + signalTimeoutMs, () =>
        deps.temporal.workflow.getHandle(workflowId).signal(assessmentChangedSignal)
      )
    } catch (error) {
      // Not started yet (the outbox will start it, and it loads the current record) or already finished: fine.
      if (error instanceof WorkflowNotFoundError) return
      deps.logger.warn(
        { workflowId, err: error },
        'assessment reminder signal not delivered; the workflow reloads on its own'
      )
    }
  }

  async function assessmentChanged(uow: UnitOfWork, assessment: Assessment): Promise<void> {
    const workflowId = assessmentReminderWorkflowId(uow.tenantId, assessment.id)
    if (isOpen(assessment.status) && assessment.dueDate) {
      // One start per assessment ever (the outbox's workflow id is unique); later changes are signals.
      const started = await uow.tx.workflowOutbox.findFirst({ where: { workflowId }, select: { id: true } })
      if (!started) {
        const input: AssessmentReminderInput = {
          tenantId: uow.tenantId,
          assessmentId: assessment.id,
          ...(deps.timing ? { timing: deps.timing } : {}),
        }
        await deps.outbox.enqueue(uow, {
          workflowType: ASSESSMENT_REMINDER_WORKFLOW,
          workflowId,
          args: [input],
          searchAttributes: {
            TenantId: uow.tenantId,
            WorkflowKind: ASSESSMENT_REMINDER_KIND,
            ChildId: assessment.childId,
            ...(assessment.providerId ? { ProviderId: assessment.providerId } : {}),
          },
        })
        return
      }
    }
    uow.afterCommit(() => signal(workflowId))
  }

  return { assessmentChanged }
}
