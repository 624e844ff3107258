/**
 * @module Activities of the child progress follow-up workflow: thin wrappers over domain/child-progress/progress-store.ts
 * in a unit of work of the workflow's tenant. Recording is idempotent per period and trigger.
 */
import type { Db } from '../infra/db.ts'
import { runInUnitOfWork } from '../infra/unit-of-work.ts'
import { DEFAULT_PROGRESS_POLICY } from '../common/child-progress/progress-rules.ts'
import {
  DEFAULT_LOOKBACK_DAYS,
  childProgressStatus,
  closeProgressFollowUps,
  recordProgressSummary,
} from '../domain/child-progress/progress-store.ts'
import type {
  ChildProgressActivities,
  ProgressRef,
  ProgressReportOutcome,
  ProgressTrigger,
} from '../common/child-progress/child-progress-contract.ts'

export interface ChildProgressActivityDeps {
  db: Db
  now?: () => Date
}

/** Creates the child progress activities: the interface the progress workflow proxies (its contract). */
export function createChildProgressActivities({
  db,
  now = () => new Date(),
}: ChildProgressActivityDeps): ChildProgressActivities {
  return {
    /** ACTIVE, ARCHIVED or MISSING. */
    async loadChildProgressStatus({ tenantId, childId }: ProgressRef) {
      return runInUnitOfWork(db, tenantId, (uow) => childProgressStatus(uow, childId))
    },

    /** Makes and stores one period's summary and its follow-up; answers ids and counts. */
    async recordProgressSummary(
      input: ProgressRef & { trigger: ProgressTrigger; periodStart: number; periodEnd: number; dayMs: number }
    ): Promise<ProgressReportOutcome> {
      return runInUnitOfWork(db, input.tenantId, (uow) =>
        recordProgressSummary(
          uow,
          {
            childId: input.childId,
            trigger: input.trigger,
            periodStart: input.periodStart,
            periodEnd: input.periodEnd,
            lookbackMs: (input.lookbackDays ?? DEFAULT_LOOKBACK_DAYS) * input.dayMs,
            policy: { ...DEFAULT_PROGRESS_POLICY, ...input.policy },
          },
          now()
        )
      )
    },

    /** Cancels the child's open follow-ups (the workflow was cancelled). */
    async closeChildProgress({ tenantId, childId }: ProgressRef): Promise<void> {
      await runInUnitOfWork(db, tenantId, (uow) => closeProgressFollowUps(uow, childId, now()))
    },
  }
}
