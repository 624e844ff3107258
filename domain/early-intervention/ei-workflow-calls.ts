/**
 * @module Keeps a child's early-intervention check-in workflow in step with the record, with signal-with-start
 * semantics built on the workflow outbox:
 *
 * - a change that leaves the child enrolled (registration, a PATCH of the `ei_*` dates, a 45-day exception) records
 *   the start in the outbox, in the transaction of the change. The outbox starts it after commit with the USE_EXISTING
 *   conflict policy (and its sweep retries a start that failed), so a running workflow is reused and a closed one —
 *   the child exited and came back, an operator terminated it — gets a new run;
 * - every change then signals the workflow after commit, and the workflow reloads the record. The signal is best
 *   effort: the workflow also reloads at least once a day, and a notice is recorded only after re-checking the
 *   locked record, so a lost signal can delay a re-plan but never make the workflow send a wrong notice.
 *
 * A change that ends the enrolment (exit date, archive, `earlyIntervention: null`) only signals: the workflow reloads,
 * closes the plan and ends.
 */
import { WorkflowNotFoundError, type Client } from '@temporalio/client'
import type { Logger } from '../../infra/logger.ts'
import type { UnitOfWork } from '../../infra/unit-of-work.ts'
import {
  EARLY_INTERVENTION_KIND,
  EARLY_INTERVENTION_WORKFLOW,
  earlyInterventionChangedSignal,
  earlyInterventionWorkflowId,
  type EarlyInterventionInput,
} from '../../common/early-intervention/early-intervention-contract.ts'
import type { WorkflowOutbox } from '../workflow-runs/workflow-outbox.ts'
import type { EiPolicy } from '../../common/early-intervention/ei-policy.ts'

export interface EarlyInterventionWorkflowCallsDeps {
  outbox: WorkflowOutbox
  temporal: Client
  logger: Logger
  /** Length of a plan day (CARE_WORKFLOW_DAY_MS); tests shorten it. */
  dayMs?: number
  policy?: Partial<EiPolicy>
  /** Longest the after-commit signal may delay the response. */
  signalTimeoutMs?: number
}

/** The enrolment columns of a child, as any child row has them. */
export interface EnrolmentOfChild {
  id: string
  eiReferralDate: Date | null
  eiExitDate: Date | null
  archivedAt: Date | null
}

export interface EarlyInterventionWorkflowCalls {
  /** Called in the unit of work of every change to a child (create, PATCH, archive) or to its 45-day exception. */
  childChanged(uow: UnitOfWork, child: EnrolmentOfChild): Promise<void>
}

/** Creates the synchroniser over the outbox and the Temporal client. */
export function createEiWorkflowCalls(deps: EarlyInterventionWorkflowCallsDeps): EarlyInterventionWorkflowCalls {
  const signalTimeoutMs = deps.signalTimeoutMs ?? 3000

  async function signal(workflowId: string): Promise<void> {
    try {
      await deps.temporal.withDeadline(Date.now() + signalTimeoutMs, () =>
        deps.temporal.workflow.getHandle(workflowId).signal(earlyInterventionChangedSignal)
      )
    } catch (error) {
      // Not started (the child was never enrolled) or already closed: nothing to tell.
      if (error instanceof WorkflowNotFoundError) return
      deps.logger.warn(
        { workflowId, err: error },
        'early-intervention signal not delivered; the workflow reloads daily'
      )
    }
  }

  async function childChanged(uow: UnitOfWork, child: EnrolmentOfChild): Promise<void> {
    const workflowId = earlyInterventionWorkflowId(uow.tenantId, child.id)
    const enrolled = child.eiReferralDate !== null && child.eiExitDate === null && child.archivedAt === null
    if (enrolled) {
      const input: EarlyInterventionInput = {
        tenantId: uow.tenantId,
        childId: child.id,
        ...(deps.dayMs ? { dayMs: deps.dayMs } : {}),
        ...(deps.policy ? { policy: deps.policy } : {}),
      }
      await deps.outbox.enqueue(uow, {
        workflowType: EARLY_INTERVENTION_WORKFLOW,
        workflowId,
        args: [input],
        searchAttributes: { TenantId: uow.tenantId, WorkflowKind: EARLY_INTERVENTION_KIND, ChildId: child.id },
        summary: `Early-intervention check-in: child ${child.id}`,
        details: [
          `IDEA Part C clocks of child \`${child.id}\` (tenant \`${uow.tenantId}\`): initial IFSP within 45 days of the`,
          'referral, periodic review every 6 months, annual meeting, transition planning 90 days before the third',
          'birthday, monthly family check-ins. Dates live in the database only.',
          '',
          `State: \`GET /v1/children/${child.id}/early-intervention\` · notices: \`…/early-intervention/notifications\``,
        ].join('\n'),
        restart: true,
      })
    }
    // Also right after an enqueue: a run that is closing as the change commits (an exit undone at once) sees the
    // signal before it completes and reloads instead (the workflow does not close while a change is pending).
    uow.afterCommit(() => signal(workflowId))
  }

  return { childChanged }
}
