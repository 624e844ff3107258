/**
 * @module What the API does with a provider's onboarding: starts an attempt (the row and the workflow start, through
 * the workflow outbox, in one transaction), drives its steps with Temporal updates (the answer is the workflow's
 * accepted result), cancels it (Temporal cancellation; the workflow records it), and shows it from the row the
 * workflow's activities keep.
 */
import type { Client } from '@temporalio/client'
import { Prisma } from '../../generated/prisma/client.ts'
import type { UnitOfWork } from '../../infra/unit-of-work.ts'
import {
  PROVIDER_ONBOARDING_KIND,
  PROVIDER_ONBOARDING_WORKFLOW,
  approveOnboardingUpdate,
  confirmProfileUpdate,
  providerOnboardingWorkflowId,
  recordBackgroundCheckUpdate,
  rejectOnboardingUpdate,
  retryLicenceVerificationUpdate,
  submitDocumentsUpdate,
  type BackgroundCheckResult,
  type ProviderOnboardingInput,
  type SubmittedDocument,
} from '../../common/provider-onboarding/provider-onboarding-contract.ts'
import { listCareNotifications, type NotificationListQuery } from '../care-notifications/care-notifications.ts'
import { callWorkflow } from '../workflow-runs/workflow-calls.ts'
import { invalidStateTransition, notFound } from '../errors.ts'
import type { WorkflowOutbox } from '../workflow-runs/workflow-outbox.ts'
import {
  DEFAULT_ONBOARDING_TIMING,
  stepTimers,
  type OnboardingOperation,
  type OnboardingStep,
  type OnboardingTiming,
} from '../../common/provider-onboarding/onboarding-rules.ts'
import { applyStep, checkStepRequest, closeAs } from './onboarding-steps.ts'

export interface OnboardingServiceDeps {
  outbox: WorkflowOutbox
  temporal: Client
  /** Overrides of the reminder and timeout schedule (tests shorten the day). */
  timing?: Partial<OnboardingTiming>
}

/** A step the API can drive, and its arguments. */
export type OnboardingAction =
  | { action: 'confirmProfile' }
  | { action: 'submitDocuments'; documents: SubmittedDocument[] }
  | { action: 'retryLicenceVerification' }
  | { action: 'recordBackgroundCheck'; result: BackgroundCheckResult }
  | { action: 'approve' }
  | { action: 'reject'; reason: string }

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

async function lockedProvider({ tx, tenantId }: UnitOfWork, providerId: string) {
  await tx.$queryRaw`SELECT id FROM providers WHERE id = ${providerId} AND tenant_id = ${tenantId} FOR UPDATE`
  const provider = await tx.provider.findFirst({
    where: { id: providerId, tenantId },
    select: { id: true, onboardingStatus: true },
  })
  if (!provider) throw notFound('provider', providerId)
  return provider
}

async function onboardingRow({ tx, tenantId }: UnitOfWork, providerId: string) {
  const provider = await tx.provider.findFirst({
    where: { id: providerId, tenantId },
    select: { id: true, onboardingStatus: true, onboarding: true },
  })
  if (!provider) throw notFound('provider', providerId)
  return provider
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

/** Creates the API side of provider onboarding. */
export function createOnboardingService(deps: OnboardingServiceDeps) {
  const timing = { ...DEFAULT_ONBOARDING_TIMING, ...deps.timing }

  /**
   * Starts an onboarding attempt for a provider who is not yet approved: INVITED or IN_REVIEW. A closed attempt (timed
   * out, cancelled, rejected) may be followed by a new one.
   * @throws AppError `not_found`, `invalid_state_transition`
   */
  async function start(uow: UnitOfWork, providerId: string, now: Date) {
    const provider = await lockedProvider(uow, providerId)
    if (provider.onboardingStatus !== 'INVITED' && provider.onboardingStatus !== 'IN_REVIEW') {
      throw invalidStateTransition(
        `A provider in status ${provider.onboardingStatus} is not onboarded; only INVITED or IN_REVIEW ones are.`
      )
    }
    const existing = await uow.tx.providerOnboarding.findFirst({ where: { providerId, tenantId: uow.tenantId } })
    if (existing?.status === 'IN_PROGRESS')
      throw invalidStateTransition('An onboarding of this provider is already in progress.')
    const attempt = (existing?.attempt ?? 0) + 1
    const { deadlineAt, reminderAt } = stepTimers(now.getTime(), 0, timing)
    const fresh = {
      status: 'IN_PROGRESS' as const,
      step: 'PROFILE' as const,
      attempt,
      startedAt: now,
      stepStartedAt: now,
      stepDeadlineAt: new Date(deadlineAt),
      nextReminderAt: reminderAt === null ? null : new Date(reminderAt),
      profileConfirmedAt: null,
      documents: [],
      documentsSubmittedAt: null,
      licenceVerification: Prisma.DbNull,
      licenceVerifiedAt: null,
      backgroundCheck: Prisma.DbNull,
      backgroundCheckCompletedAt: null,
      decisionNote: null,
      closedAt: null,
    }
    // A new attempt starts from a clean row: nothing of the closed attempt carries over.
    await uow.tx.providerOnboarding.upsert({
      where: { providerId },
      create: { providerId, tenantId: uow.tenantId, ...fresh },
      update: fresh,
    })
    const input: ProviderOnboardingInput = {
      tenantId: uow.tenantId,
      providerId,
      attempt,
      ...(deps.timing ? { timing: deps.timing } : {}),
    }
    await deps.outbox.enqueue(uow, {
      workflowType: PROVIDER_ONBOARDING_WORKFLOW,
      workflowId: providerOnboardingWorkflowId(uow.tenantId, providerId, attempt),
      args: [input],
      searchAttributes: { TenantId: uow.tenantId, WorkflowKind: PROVIDER_ONBOARDING_KIND, ProviderId: providerId },
      summary: `Provider onboarding: provider ${providerId}, attempt ${attempt}`,
      details: [
        `Onboarding of provider \`${providerId}\` (tenant \`${uow.tenantId}\`), attempt ${attempt}: profile, credential`,
        'documents, licence verification, background check, admin approval; reminders while a step waits, timeout',
        `after ${timing.stepTimeoutDays} days on one step. Ends in \`provider.approved\`.`,
        '',
        `State: \`GET /v1/providers/${providerId}/onboarding\``,
      ].join('\n'),
    })
    return view(uow, providerId)
  }

  /** The onboarding as its workflow last recorded it. @throws AppError `not_found` (also when never started) */
  async function view(uow: UnitOfWork, providerId: string) {
    const provider = await onboardingRow(uow, providerId)
    if (!provider.onboarding) throw notFound('onboarding of provider', providerId)
    return {
      ...provider.onboarding,
      providerStatus: provider.onboardingStatus,
      workflowId: providerOnboardingWorkflowId(uow.tenantId, providerId, provider.onboarding.attempt),
    }
  }

  /**
   * Asks the workflow for one step (a Temporal update it accepts or refuses against its current step and timers),
   * holding no transaction (the checks commit first), and records the accepted step in the unit's next transaction,
   * with the timers the workflow set. Recording is idempotent (onboarding-steps.ts `applyStep`): the workflow's own
   * recording of the step may come first.
   * @throws AppError `invalid_state_transition` (not the current step, not in progress, timed out), `validation_error`
   *   (profile incomplete, documents missing), `dependency_unavailable`
   */
  async function act(uow: UnitOfWork, providerId: string, request: OnboardingAction, now: Date) {
    const { expected, ops } = (
      PLAN[request.action] as (r: OnboardingAction) => { expected?: OnboardingStep; ops: OnboardingOperation[] }
    )(request)
    // Locks the row: concurrent requests for one provider's onboarding go one after the other.
    const { row, licenceVerified } = await checkStepRequest(uow, providerId, ops[0]!, expected, now)
    const handle = deps.temporal.workflow.getHandle(providerOnboardingWorkflowId(uow.tenantId, providerId, row.attempt))
    const accepted = await uow.release(() =>
      callWorkflow(deps.temporal, 'onboarding', () => {
        switch (request.action) {
          case 'confirmProfile':
            return handle.executeUpdate(confirmProfileUpdate)
          case 'submitDocuments':
            return handle.executeUpdate(submitDocumentsUpdate, { args: [request.documents, licenceVerified] })
          case 'retryLicenceVerification':
            return handle.executeUpdate(retryLicenceVerificationUpdate, { args: [licenceVerified] })
          case 'recordBackgroundCheck':
            return handle.executeUpdate(recordBackgroundCheckUpdate, { args: [request.result] })
          case 'approve':
            return handle.executeUpdate(approveOnboardingUpdate)
          case 'reject':
            return handle.executeUpdate(rejectOnboardingUpdate, { args: [{ reason: request.reason }] })
        }
      })
    )
    for (const op of ops) await applyStep(uow, { providerId, attempt: row.attempt }, op, accepted.timers, now)
    return view(uow, providerId)
  }

  /**
   * Cancels the attempt in progress (Temporal cancellation) and records CANCELLED. Refused when none is in progress.
   * @throws AppError `not_found`, `invalid_state_transition`, `dependency_unavailable`
   */
  async function cancel(uow: UnitOfWork, providerId: string, now: Date) {
    const { row } = await checkStepRequest(uow, providerId, { action: 'reject', reason: 'cancelled' }, undefined, now)
    const handle = deps.temporal.workflow.getHandle(providerOnboardingWorkflowId(uow.tenantId, providerId, row.attempt))
    await uow.release(() => callWorkflow(deps.temporal, 'onboarding', () => handle.cancel()))
    await closeAs(uow, { providerId, attempt: row.attempt }, 'CANCELLED', now)
    return view(uow, providerId)
  }

  return { start, view, act, cancel }
}

export type OnboardingService = ReturnType<typeof createOnboardingService>
