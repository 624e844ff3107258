/**
 * @module What the API does with a provider's onboarding: starts an attempt (the row and the workflow start, through
 * the workflow outbox, in one transaction), drives its steps with Temporal updates (the answer is the workflow's
 * accepted result), cancels it (Temporal cancellation; the workflow records it), and shows it from the row the
 * workflow's activities keep.
 */
import type { Client } from '@temporalio/client'
import type { UnitOfWork } from '../../infra/unit-of-work.ts'
import { PROVIDER_ONBOARDING_KIND } from '../../common/provider-onboarding/provider-onboarding-contract.ts'
import { listCareNotifications, type NotificationListQuery } from '../care-notifications/care-notifications.ts'
import { notFound } from '../errors.ts'
import type { WorkflowOutbox } from '../workflow-runs/workflow-outbox.ts'
import {
  type OnboardingOperation,
  type OnboardingStep,
  type OnboardingTiming,
} from '../../common/provider-onboarding/onboarding-rules.ts'
import { applyStep, checkStepRequest } from './onboarding-steps.ts'
import { closeAs } from './onboarding-waits.ts'
import { onboardingView } from './onboarding-row.ts'
import { startOnboarding } from './start-onboarding.ts'
import {
  createOnboardingWorkflowCalls,
  type OnboardingAction,
  type OnboardingWorkflowCalls,
} from './onboarding-workflow-calls.ts'

export interface OnboardingServiceDeps {
  outbox: WorkflowOutbox
  temporal: Client
  /** Overrides of the reminder and timeout schedule (tests shorten the day). */
  timing?: Partial<OnboardingTiming>
}

/** Per action: the step it belongs to, and what it records (in order) once the workflow accepts it. */
const PLAN: {
  [A in OnboardingAction['action']]: (r: Extract<OnboardingAction, { action: A }>) => {
    expected?: OnboardingStep
    ops: OnboardingOperation[]
  }
} = {
  confirmProfile: () => ({ expected: 'PROFILE', ops: [{ action: 'confirmProfile' }] }),
  // The licence is verified at once, so the answer already says whether it passed.
  submitDocuments: (r) => ({
    expected: 'DOCUMENTS',
    ops: [{ action: 'submitDocuments', documents: r.documents }, { action: 'verifyLicence' }],
  }),
  retryLicenceVerification: () => ({ expected: 'LICENCE_VERIFICATION', ops: [{ action: 'verifyLicence' }] }),
  recordBackgroundCheck: (r) => ({
    expected: 'BACKGROUND_CHECK',
    ops: [{ action: 'recordBackgroundCheck', result: r.result }],
  }),
  approve: () => ({ expected: 'ADMIN_APPROVAL', ops: [{ action: 'approve' }] }),
  reject: (r) => ({ ops: [{ action: 'reject', reason: r.reason }] }),
}

/**
 * A page of the notifications the provider's onboarding workflows raised (reminders, timeouts), across attempts.
 * @throws AppError `not_found` for a provider the tenant does not have
 */
export async function listOnboardingNotifications(uow: UnitOfWork, providerId: string, query: NotificationListQuery) {
  const provider = await uow.tx.provider.findFirst({
    where: { id: providerId, tenantId: uow.tenantId },
    select: { id: true },
  })
  if (!provider) throw notFound('provider', providerId)
  return listCareNotifications(uow, { workflowKind: PROVIDER_ONBOARDING_KIND, providerId }, query)
}

/**
 * Asks the workflow for one step (a Temporal update it accepts or refuses against its current step and timers),
 * holding no transaction (the checks commit first), and records the accepted step in the unit's next transaction,
 * with the timers the workflow set. Recording is idempotent (onboarding-steps.ts `applyStep`): the workflow's own
 * recording of the step may come first.
 * @throws AppError `invalid_state_transition` (not the current step, not in progress, timed out), `validation_error`
 *   (profile incomplete, documents missing), `dependency_unavailable`
 */
export async function askOnboardingStep(
  workflow: Pick<OnboardingWorkflowCalls, 'step'>,
  uow: UnitOfWork,
  providerId: string,
  request: OnboardingAction,
  now: Date
) {
  const { expected, ops } = (
    PLAN[request.action] as (r: OnboardingAction) => { expected?: OnboardingStep; ops: OnboardingOperation[] }
  )(request)
  // Locks the row: concurrent requests for one provider's onboarding go one after the other.
  const { row, licenceVerified } = await checkStepRequest(uow, providerId, ops[0]!, expected, now)
  const attempt = { providerId, attempt: row.attempt }
  const accepted = await uow.release(() => workflow.step(uow, attempt, request, licenceVerified))
  for (const op of ops) await applyStep(uow, { providerId, attempt: row.attempt }, op, accepted.timers, now)
  return onboardingView(uow, providerId)
}

/**
 * Cancels the attempt in progress (Temporal cancellation) and records CANCELLED. Refused when none is in progress.
 * @throws AppError `not_found`, `invalid_state_transition`, `dependency_unavailable`
 */
export async function cancelOnboarding(
  workflow: Pick<OnboardingWorkflowCalls, 'cancel'>,
  uow: UnitOfWork,
  providerId: string,
  now: Date
) {
  const { row } = await checkStepRequest(uow, providerId, { action: 'reject', reason: 'cancelled' }, undefined, now)
  await uow.release(() => workflow.cancel(uow, { providerId, attempt: row.attempt }))
  await closeAs(uow, { providerId, attempt: row.attempt }, 'CANCELLED', now)
  return onboardingView(uow, providerId)
}

/** Creates the API side of provider onboarding. */
export function createOnboardingService(deps: OnboardingServiceDeps) {
  const workflow = createOnboardingWorkflowCalls(deps)
  return {
    /** @see startOnboarding */
    start: (uow: UnitOfWork, providerId: string, now: Date) => startOnboarding(deps, uow, providerId, now),
    view: onboardingView,
    /** @see askOnboardingStep */
    act: (uow: UnitOfWork, providerId: string, request: OnboardingAction, now: Date) =>
      askOnboardingStep(workflow, uow, providerId, request, now),
    /** @see cancelOnboarding */
    cancel: (uow: UnitOfWork, providerId: string, now: Date) => cancelOnboarding(workflow, uow, providerId, now),
  }
}

export type OnboardingService = ReturnType<typeof createOnboardingService>
