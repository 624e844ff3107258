/**
 * @module Activities of the lead qualification workflow: thin wrappers that run domain/leads/lead-workflow-steps.ts in
 * a unit of work of the workflow's tenant. All idempotent (each acts only from the status it expects, a follow-up is
 * recorded once per offer and number), and each reports the lead as the database has it.
 */
import type { Db } from '../infra/db.ts'
import { runInUnitOfWork } from '../infra/unit-of-work.ts'
import type { LeadPolicy } from '../common/leads/lead-policy.ts'
import {
  closeNoResponseStep,
  followUpStep,
  matchStep,
  qualifyStep,
  settleStep,
  type FollowUpInput,
} from '../domain/leads/lead-workflow-steps.ts'
import type { LeadQualificationActivities, LeadRef, LeadSnapshot } from '../common/leads/lead-qualification-contract.ts'

export interface LeadQualificationActivityDeps {
  db: Db
  /** The activities' clock (injectable for tests). */
  now?: () => Date
}

/** Creates the lead qualification activities: the interface the lead workflow proxies (its contract). */
export function createLeadQualificationActivities({
  db,
  now = () => new Date(),
}: LeadQualificationActivityDeps): LeadQualificationActivities {
  return {
    /** Qualifies a NEW lead by the rules and records the explanation. */
    async qualifyLead({ tenantId, leadId }: LeadRef): Promise<LeadSnapshot> {
      return runInUnitOfWork(db, tenantId, (uow) => qualifyStep(uow, leadId, now()))
    },

    /** Matches a QUALIFIED lead and records the top providers with their next slots. */
    async matchLead({
      tenantId,
      leadId,
      policy,
      lastAttempt,
    }: LeadRef & { policy: LeadPolicy; lastAttempt: boolean }): Promise<LeadSnapshot> {
      return runInUnitOfWork(db, tenantId, (uow) => matchStep(uow, leadId, policy, lastAttempt, now()))
    },

    /** Records one follow-up of an unanswered offer (a care notification, once). */
    async recordLeadFollowUp({ tenantId, ...input }: LeadRef & Omit<FollowUpInput, 'leadId'>): Promise<LeadSnapshot> {
      return runInUnitOfWork(db, tenantId, (uow) => followUpStep(uow, input))
    },

    /** Closes an unanswered offer LOST (NO_RESPONSE). */
    async closeLeadNoResponse({ tenantId, leadId }: LeadRef): Promise<LeadSnapshot> {
      return runInUnitOfWork(db, tenantId, (uow) => closeNoResponseStep(uow, leadId, now()))
    },

    /** Re-reads the lead after an accepted update, once the API's request has committed or rolled back. */
    async settleLead({ tenantId, leadId }: LeadRef): Promise<LeadSnapshot> {
      return runInUnitOfWork(db, tenantId, (uow) => settleStep(uow, leadId))
    },
  }
}
