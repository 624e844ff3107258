/**
 * @module What the API asks of a provider's onboarding workflow (the shape every domain file that calls Temporal has:
 * docs/workflows.md, "Calls into Temporal"): one step as a Temporal update the workflow accepts or refuses against
 * its current step and timers, named after the request's operation so a retry is answered with the update already
 * run (updateIdFor), and the attempt's cancellation.
 */
import type { Client } from '@temporalio/client'
import type { UnitOfWork } from '../../infra/unit-of-work.ts'
import {
  approveOnboardingUpdate,
  confirmProfileUpdate,
  providerOnboardingWorkflowId,
  recordBackgroundCheckUpdate,
  rejectOnboardingUpdate,
  retryLicenceVerificationUpdate,
  submitDocumentsUpdate,
  type BackgroundCheckResult,
  type SubmittedDocument,
} from '../../common/provider-onboarding/provider-onboarding-contract.ts'
import { callWorkflow, updateIdFor } from '../workflow-runs/workflow-calls.ts'

/** A step the API can drive, and its arguments. */
export type OnboardingAction =
  | { action: 'confirmProfile' }
  | { action: 'submitDocuments'; documents: SubmittedDocument[] }
  | { action: 'retryLicenceVerification' }
  | { action: 'recordBackgroundCheck'; result: BackgroundCheckResult }
  | { action: 'approve' }
  | { action: 'reject'; reason: string }

/** One attempt of one provider's onboarding. */
export interface OnboardingAttempt {
  providerId: string
  attempt: number
}

/** Creates the calls over a Temporal client. */
export function createOnboardingWorkflowCalls({ temporal }: { temporal: Client }) {
  const handleOf = (uow: UnitOfWork, { providerId, attempt }: OnboardingAttempt) =>
    temporal.workflow.getHandle(providerOnboardingWorkflowId(uow.tenantId, providerId, attempt))

  return {
    /**
     * Asks the workflow to accept one step; `licenceVerified` is what the API's check of the licence found.
     * @returns the workflow's accepted result (the timers it set)
     */
    step(uow: UnitOfWork, attempt: OnboardingAttempt, request: OnboardingAction, licenceVerified: boolean) {
      const handle = handleOf(uow, attempt)
      const named = (update: { name: string }) => ({ updateId: updateIdFor(uow, update) })
      return callWorkflow(temporal, 'onboarding', () => {
        switch (request.action) {
          case 'confirmProfile':
            return handle.executeUpdate(confirmProfileUpdate, named(confirmProfileUpdate))
          case 'submitDocuments':
            return handle.executeUpdate(submitDocumentsUpdate, {
              args: [request.documents, licenceVerified],
              ...named(submitDocumentsUpdate),
            })
          case 'retryLicenceVerification':
            return handle.executeUpdate(retryLicenceVerificationUpdate, {
              args: [licenceVerified],
              ...named(retryLicenceVerificationUpdate),
            })
          case 'recordBackgroundCheck':
            return handle.executeUpdate(recordBackgroundCheckUpdate, {
              args: [request.result],
              ...named(recordBackgroundCheckUpdate),
            })
          case 'approve':
            return handle.executeUpdate(approveOnboardingUpdate, named(approveOnboardingUpdate))
          case 'reject':
            return handle.executeUpdate(rejectOnboardingUpdate, {
              args: [{ reason: request.reason }],
              ...named(rejectOnboardingUpdate),
            })
        }
      })
    },

    /** Cancels the attempt (Temporal cancellation; the workflow records it). */
    cancel: (uow: UnitOfWork, attempt: OnboardingAttempt) =>
      callWorkflow(temporal, 'onboarding', () => handleOf(uow, attempt).cancel()),
  }
}

export type OnboardingWorkflowCalls = ReturnType<typeof createOnboardingWorkflowCalls>
