/**
 * @module A provider's onboarding row and what every step and wait does with it: lock it, read it, advance its step with
 * fresh timers, settle its reminders, close it. onboarding-steps.ts records the steps the workflow accepted;
 * onboarding-waits.ts what happens while a step waits and when the onboarding ends outside a step.
 */
import type { Prisma } from '../../generated/prisma/client.ts'
import type { UnitOfWork } from '../../infra/unit-of-work.ts'
import { providerOnboardingWorkflowId } from '../../common/provider-onboarding/provider-onboarding-contract.ts'
import { PROVIDER_ONBOARDING_KIND } from '../../common/provider-onboarding/provider-onboarding-contract.ts'
import { openNotifications, settleNotifications } from '../care-notifications/care-notifications.ts'
import { invalidStateTransition, notFound } from '../errors.ts'
import {
  type OnboardingStatus,
  type OnboardingStep,
  type StepTimers,
} from '../../common/provider-onboarding/onboarding-rules.ts'

export interface OnboardingRef {
  providerId: string
  attempt: number
}

export interface OnboardingStateValue {
  status: OnboardingStatus
  step: OnboardingStep
}

export const subject = (providerId: string) => ({ workflowKind: PROVIDER_ONBOARDING_KIND, providerId }) as const
export const stateOf = (row: { status: OnboardingStatus; step: OnboardingStep }): OnboardingStateValue => ({
  status: row.status,
  step: row.step,
})

export const timerColumns = (timers: StepTimers) => ({
  stepStartedAt: new Date(timers.stepStartedAt),
  stepDeadlineAt: new Date(timers.stepDeadlineAt),
  nextReminderAt: timers.nextReminderAt === null ? null : new Date(timers.nextReminderAt),
})

export function findRow({ tx, tenantId }: UnitOfWork, providerId: string) {
  return tx.providerOnboarding.findFirst({ where: { providerId, tenantId } })
}

/** Locks the onboarding row of this attempt. @throws AppError `not_found`, `invalid_state_transition` (another attempt) */
export async function lockRow(uow: UnitOfWork, ref: OnboardingRef) {
  await uow.tx
    .$queryRaw`SELECT provider_id FROM provider_onboardings WHERE provider_id = ${ref.providerId} AND tenant_id = ${uow.tenantId} FOR UPDATE`
  const row = await findRow(uow, ref.providerId)
  if (!row) throw notFound('onboarding', ref.providerId)
  if (row.attempt !== ref.attempt)
    throw invalidStateTransition('This onboarding attempt was superseded by a newer one.')
  return row
}

/** Whether the row still waits for `step` (false: already recorded, or closed). */
export const waitsFor = (row: { status: OnboardingStatus; step: OnboardingStep }, step: OnboardingStep) =>
  row.status === 'IN_PROGRESS' && row.step === step

/** Moves to `next`: the step's timers, and the reminders of the step left behind are answered. */
export async function advance(
  uow: UnitOfWork,
  providerId: string,
  next: OnboardingStep,
  data: Prisma.ProviderOnboardingUpdateInput,
  timers: StepTimers,
  now: Date
) {
  await uow.tx.providerOnboarding.update({
    where: { providerId },
    data: { ...data, step: next, ...timerColumns(timers) },
  })
  await resolveReminders(uow, providerId, now)
  return { status: 'IN_PROGRESS' as const, step: next }
}

export async function resolveReminders(uow: UnitOfWork, providerId: string, now: Date) {
  const reminders = (await openNotifications(uow, subject(providerId)))
    .filter((n) => n.kind !== 'ONBOARDING_TIMED_OUT')
    .map((n) => n.id)
  await settleNotifications(uow, subject(providerId), 'RESOLVED', now, reminders)
}

export async function providerOf({ tx, tenantId }: UnitOfWork, providerId: string) {
  const provider = await tx.provider.findFirst({
    where: { id: providerId, tenantId },
    select: {
      email: true,
      disciplines: true,
      ageGroups: true,
      languages: true,
      credentials: true,
      timeZone: true,
      onboardingStatus: true,
    },
  })
  if (!provider) throw notFound('provider', providerId)
  return provider
}

/** Closes the row with a final status; reminders are answered (APPROVED) or cancelled. */
export async function closeRow(
  uow: UnitOfWork,
  providerId: string,
  status: Exclude<OnboardingStatus, 'IN_PROGRESS'>,
  now: Date,
  decisionNote?: string
) {
  const row = await uow.tx.providerOnboarding.update({
    where: { providerId },
    data: {
      status,
      closedAt: now,
      stepDeadlineAt: null,
      nextReminderAt: null,
      ...(decisionNote ? { decisionNote } : {}),
    },
  })
  if (status === 'APPROVED') await resolveReminders(uow, providerId, now)
  await settleNotifications(uow, subject(providerId), 'CANCELLED', now)
  return stateOf(row)
}

/** The provider, its row locked for this unit. @throws AppError `not_found` */
export async function lockedProvider({ tx, tenantId }: UnitOfWork, providerId: string) {
  await tx.$queryRaw`SELECT id FROM providers WHERE id = ${providerId} AND tenant_id = ${tenantId} FOR UPDATE`
  const provider = await tx.provider.findFirst({
    where: { id: providerId, tenantId },
    select: { id: true, onboardingStatus: true },
  })
  if (!provider) throw notFound('provider', providerId)
  return provider
}

/** The provider with its onboarding row. @throws AppError `not_found` */
async function onboardingRow({ tx, tenantId }: UnitOfWork, providerId: string) {
  const provider = await tx.provider.findFirst({
    where: { id: providerId, tenantId },
    select: { id: true, onboardingStatus: true, onboarding: true },
  })
  if (!provider) throw notFound('provider', providerId)
  return provider
}

/** The onboarding as its workflow last recorded it. @throws AppError `not_found` (also when never started) */
export async function onboardingView(uow: UnitOfWork, providerId: string) {
  const provider = await onboardingRow(uow, providerId)
  if (!provider.onboarding) throw notFound('onboarding of provider', providerId)
  return {
    ...provider.onboarding,
    providerStatus: provider.onboardingStatus,
    workflowId: providerOnboardingWorkflowId(uow.tenantId, providerId, provider.onboarding.attempt),
  }
}
