/**
 * @module What happens while an onboarding step waits and when the onboarding ends outside a step: reminders, the notice
 * that an approval is awaited, the timeout or a cancellation, and taking the provider's word when it was approved or
 * offboarded outside the workflow. Each is an activity of the onboarding workflow; onboarding-row.ts is the row.
 */
import type { UnitOfWork } from '../../infra/unit-of-work.ts'
import { PROVIDER_ONBOARDING_KIND } from '../../common/provider-onboarding/provider-onboarding-contract.ts'
import { recordCareNotification } from '../care-notifications/care-notifications.ts'
import { type OnboardingStep } from '../../common/provider-onboarding/onboarding-rules.ts'

import {
  closeRow,
  findRow,
  lockRow,
  providerOf,
  stateOf,
  waitsFor,
  type OnboardingRef,
  type OnboardingStateValue,
} from './onboarding-row.ts'

/**
 * Takes the provider's word when it was moved outside the workflow: approved (through `POST /v1/providers/{id}/approve`)
 * closes the onboarding as APPROVED, offboarded as CANCELLED; otherwise nothing changes.
 */
export async function reconcile(uow: UnitOfWork, ref: OnboardingRef, now: Date): Promise<OnboardingStateValue> {
  await uow.tx
    .$queryRaw`SELECT provider_id FROM provider_onboardings WHERE provider_id = ${ref.providerId} AND tenant_id = ${uow.tenantId} FOR UPDATE`
  const row = await findRow(uow, ref.providerId)
  if (!row || row.attempt !== ref.attempt || row.status !== 'IN_PROGRESS')
    return row ? stateOf(row) : { status: 'CANCELLED', step: 'PROFILE' }
  const provider = await providerOf(uow, ref.providerId)
  if (provider.onboardingStatus === 'APPROVED')
    return closeRow(uow, ref.providerId, 'APPROVED', now, 'Approved outside the onboarding workflow.')
  if (provider.onboardingStatus === 'OFFBOARDED')
    return closeRow(uow, ref.providerId, 'CANCELLED', now, 'The provider was offboarded.')
  return stateOf(row)
}

/** Times the onboarding out, or records its cancellation; an approval that happened meanwhile outside wins. */
export async function closeAs(uow: UnitOfWork, ref: OnboardingRef, status: 'TIMED_OUT' | 'CANCELLED', now: Date) {
  const reconciled = await reconcile(uow, ref, now)
  if (reconciled.status !== 'IN_PROGRESS') return reconciled
  const row = await findRow(uow, ref.providerId)
  const closed = await closeRow(uow, ref.providerId, status, now)
  if (status === 'TIMED_OUT') {
    await recordCareNotification(uow, {
      workflowKind: PROVIDER_ONBOARDING_KIND,
      kind: 'ONBOARDING_TIMED_OUT',
      providerId: ref.providerId,
      details: { step: row!.step, audience: 'ADMIN', attempt: ref.attempt },
      dedupeKey: `${PROVIDER_ONBOARDING_KIND}:${ref.providerId}:${ref.attempt}:timed-out`,
    })
  }
  return closed
}

/** A reminder that the step still waits (to the provider for profile and documents, to admins after). */
export async function remind(
  uow: UnitOfWork,
  ref: OnboardingRef,
  step: OnboardingStep,
  reminder: number,
  nextReminderAt: number | null,
  now: Date
) {
  const reconciled = await reconcile(uow, ref, now)
  if (reconciled.status !== 'IN_PROGRESS' || reconciled.step !== step) return reconciled
  await recordCareNotification(uow, {
    workflowKind: PROVIDER_ONBOARDING_KIND,
    kind: 'ONBOARDING_REMINDER',
    providerId: ref.providerId,
    details: {
      step,
      reminder,
      audience: step === 'PROFILE' || step === 'DOCUMENTS' ? 'PROVIDER' : 'ADMIN',
      attempt: ref.attempt,
    },
    dedupeKey: `${PROVIDER_ONBOARDING_KIND}:${ref.providerId}:${ref.attempt}:${step}:${reminder}`,
  })
  await uow.tx.providerOnboarding.update({
    where: { providerId: ref.providerId },
    data: { nextReminderAt: nextReminderAt === null ? null : new Date(nextReminderAt) },
  })
  return reconciled
}

/** Tells admins the onboarding reached their approval, unless it has moved on since (one notice per attempt). */
export async function notifyReadyForApproval(uow: UnitOfWork, ref: OnboardingRef): Promise<void> {
  const row = await lockRow(uow, ref)
  if (!waitsFor(row, 'ADMIN_APPROVAL')) return
  const check = row.backgroundCheck as { outcome?: string } | null
  await recordCareNotification(uow, {
    workflowKind: PROVIDER_ONBOARDING_KIND,
    kind: 'ONBOARDING_READY_FOR_APPROVAL',
    providerId: ref.providerId,
    details: {
      step: 'ADMIN_APPROVAL',
      audience: 'ADMIN',
      attempt: ref.attempt,
      backgroundCheck: check?.outcome ?? null,
    },
    dedupeKey: `${PROVIDER_ONBOARDING_KIND}:${ref.providerId}:${ref.attempt}:ready-for-approval`,
  })
}
