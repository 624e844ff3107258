/**
 * @module Starting a provider's onboarding attempt: the row and the workflow's start, through the workflow outbox, in
 * one transaction.
 */
import { Prisma } from '../../generated/prisma/client.ts'
import type { UnitOfWork } from '../../infra/unit-of-work.ts'
import {
  PROVIDER_ONBOARDING_KIND,
  PROVIDER_ONBOARDING_WORKFLOW,
  providerOnboardingWorkflowId,
  type ProviderOnboardingInput,
} from '../../common/provider-onboarding/provider-onboarding-contract.ts'
import { DEFAULT_ONBOARDING_TIMING, stepTimers } from '../../common/provider-onboarding/onboarding-rules.ts'
import { invalidStateTransition } from '../errors.ts'
import { lockedProvider, onboardingView } from './onboarding-row.ts'
import type { OnboardingServiceDeps } from './onboarding-service.ts'

/**
 * Starts an onboarding attempt for a provider who is not yet approved: INVITED or IN_REVIEW. A closed attempt (timed
 * out, cancelled, rejected) may be followed by a new one.
 * @throws AppError `not_found`, `invalid_state_transition`
 */
export async function startOnboarding(
  deps: Pick<OnboardingServiceDeps, 'outbox' | 'timing'>,
  uow: UnitOfWork,
  providerId: string,
  now: Date
) {
  const timing = { ...DEFAULT_ONBOARDING_TIMING, ...deps.timing }
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
  return onboardingView(uow, providerId)
}
