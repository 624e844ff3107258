/**
 * @module Activities of the early-intervention check-in workflow: thin wrappers that run domain/early-intervention
 * functions in a unit of work of the workflow's tenant. All idempotent: the refresh rewrites the plan row from the
 * record, a notice is recorded once per dedupe key, and closing twice closes once.
 */
import type { Db } from '../infra/db.ts'
import { runInUnitOfWork } from '../infra/unit-of-work.ts'
import { eiPolicyOf } from '../common/early-intervention/ei-policy.ts'
import { closePlan, recordNotice, refreshPlan } from '../domain/early-intervention/ei-plan-store.ts'
import type {
  EarlyInterventionActivities,
  EiCloseReason,
  EiNoticeOutcome,
  EiRef,
  EiRefresh,
} from '../common/early-intervention/early-intervention-contract.ts'

export interface EarlyInterventionActivityDeps {
  db: Db
  /** The activities' clock, for row timestamps (injectable for tests). */
  now?: () => Date
}

/** Creates the early-intervention activities: the interface the early-intervention workflow proxies (its contract). */
export function createEarlyInterventionActivities({
  db,
  now = () => new Date(),
}: EarlyInterventionActivityDeps): EarlyInterventionActivities {
  return {
    /**
     * Recomputes the child's plan as of the workflow's plan time (`asOf`, epoch ms), stores what the API shows, and
     * reports the next notice to send, or that the plan closed.
     */
    async refreshEarlyInterventionPlan({
      tenantId,
      childId,
      policy,
      asOf,
    }: EiRef & { asOf: number }): Promise<EiRefresh> {
      return runInUnitOfWork(db, tenantId, (uow) => refreshPlan(uow, childId, asOf, eiPolicyOf(policy), now()))
    },

    /** Records one notice (a care notification) if the child's locked record still has it due as of `asOf`. */
    async recordEarlyInterventionNotice({
      tenantId,
      childId,
      policy,
      asOf,
      key,
    }: EiRef & { asOf: number; key: string }): Promise<EiNoticeOutcome> {
      return runInUnitOfWork(db, tenantId, (uow) => recordNotice(uow, childId, key, asOf, eiPolicyOf(policy), now()))
    },

    /** Closes the plan for a reason the record does not show (an operator cancelled the workflow). */
    async closeEarlyInterventionPlan({ tenantId, childId, reason }: EiRef & { reason: EiCloseReason }): Promise<void> {
      await runInUnitOfWork(db, tenantId, (uow) => closePlan(uow, childId, reason, now()))
    },
  }
}
