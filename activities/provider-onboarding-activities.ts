/**
 * @module Activities of the provider onboarding workflow: each runs domain/provider-onboarding/onboarding-steps.ts in a unit of
 * work of the workflow's tenant. All are idempotent: a step already recorded (by the API request that asked for it)
 * answers the row's state, reminders and notices are recorded once per dedupe key, and a closed row stays closed.
 */
import type { Db } from '../infra/db.ts'
import { runInUnitOfWork } from '../infra/unit-of-work.ts'
import type { OnboardingOperation, OnboardingStep, StepTimers } from '../common/provider-onboarding/onboarding-rules.ts'
import type { OnboardingStateValue } from '../domain/provider-onboarding/onboarding-row.ts'
import { applyStep } from '../domain/provider-onboarding/onboarding-steps.ts'
import { closeAs, notifyReadyForApproval, reconcile, remind } from '../domain/provider-onboarding/onboarding-waits.ts'
import type {
  OnboardingActivityRef,
  ProviderOnboardingActivities,
} from '../common/provider-onboarding/provider-onboarding-contract.ts'

export interface ProviderOnboardingActivityDeps {
  db: Db
  now?: () => Date
}

/** Creates the provider onboarding activities: the interface the onboarding workflow proxies (its contract). */
export function createProviderOnboardingActivities({
  db,
  now = () => new Date(),
}: ProviderOnboardingActivityDeps): ProviderOnboardingActivities {
  const inTenant = <T>({ tenantId }: OnboardingActivityRef, work: Parameters<typeof runInUnitOfWork<T>>[2]) =>
    runInUnitOfWork(db, tenantId, work)
  return {
    /** Records a step the workflow accepted (a no-op when the API request already did). */
    applyOnboardingStep: (
      input: OnboardingActivityRef & { op: OnboardingOperation; timers: StepTimers }
    ): Promise<OnboardingStateValue> => inTenant(input, (uow) => applyStep(uow, input, input.op, input.timers, now())),

    /** Tells admins the onboarding waits for their decision (while it still does). */
    notifyReadyForApproval: (input: OnboardingActivityRef): Promise<void> =>
      inTenant(input, (uow) => notifyReadyForApproval(uow, input)),

    /** Re-reads the provider after it was moved outside the workflow (approved or offboarded there). */
    reloadOnboarding: (input: OnboardingActivityRef): Promise<OnboardingStateValue> =>
      inTenant(input, (uow) => reconcile(uow, input, now())),

    /** TIMED_OUT or CANCELLED, unless the provider was approved outside meanwhile. */
    closeOnboarding: (
      input: OnboardingActivityRef & { status: 'TIMED_OUT' | 'CANCELLED' }
    ): Promise<OnboardingStateValue> => inTenant(input, (uow) => closeAs(uow, input, input.status, now())),

    /** A reminder that the step still waits. */
    recordOnboardingReminder: (
      input: OnboardingActivityRef & { step: OnboardingStep; reminder: number; nextReminderAt: number | null }
    ): Promise<OnboardingStateValue> =>
      inTenant(input, (uow) => remind(uow, input, input.step, input.reminder, input.nextReminderAt, now())),
  }
}
