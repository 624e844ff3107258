/**
 * @module A provider's onboarding status and its state machine. Only APPROVED providers are bookable.
 *
 * ```
 *   INVITED ──submit-for-review──► IN_REVIEW ──approve──► APPROVED ◄──approve── SUSPENDED
 *      └──────────────approve────────────────────────────►   └──suspend──────────►
 *   any status but OFFBOARDED ──offboard──► OFFBOARDED (final)
 * ```
 *
 * Providers created through the API without a status are APPROVED at once. Approval records `provider.approved`
 * in the same transaction (the onboarding workflow will drive these operations). Offboarding is refused while the
 * provider has upcoming CONFIRMED appointments: they must be cancelled or moved first, so no family is left booked
 * with someone who no longer works there.
 */
import type { ProviderOnboardingStatus } from '../../generated/prisma/enums.ts'
import type { UnitOfWork } from '../../infra/unit-of-work.ts'
import { conflict, invalidStateTransition } from '../errors.ts'
import { recordEvent } from '../events/record-event.ts'
import { getProvider, type ProviderView } from '../providers/provider-service.ts'

export type OnboardingAction = 'submitForReview' | 'approve' | 'suspend' | 'offboard'

/** From which statuses each action may be taken, and where it leads. */
export const ONBOARDING_TRANSITIONS: Record<
  OnboardingAction,
  { from: ProviderOnboardingStatus[]; to: ProviderOnboardingStatus }
> = {
  submitForReview: { from: ['INVITED'], to: 'IN_REVIEW' },
  approve: { from: ['INVITED', 'IN_REVIEW', 'SUSPENDED'], to: 'APPROVED' },
  suspend: { from: ['APPROVED'], to: 'SUSPENDED' },
  offboard: { from: ['INVITED', 'IN_REVIEW', 'APPROVED', 'SUSPENDED'], to: 'OFFBOARDED' },
}

/**
 * Moves a provider through onboarding.
 * @param action - the operation
 * @param now - when it happens (approval and offboarding times, the event's time)
 * @throws AppError `not_found`, `invalid_state_transition`, `conflict` (offboarding with upcoming appointments)
 */
export async function transitionProvider(
  uow: UnitOfWork,
  id: string,
  action: OnboardingAction,
  now: Date
): Promise<ProviderView> {
  // Lock the row: two concurrent transitions must not both pass the check below.
  await uow.tx.$queryRaw`SELECT id FROM providers WHERE id = ${id} AND tenant_id = ${uow.tenantId} FOR UPDATE`
  const provider = await getProvider(uow, id)
  const { from, to } = ONBOARDING_TRANSITIONS[action]
  if (!from.includes(provider.onboardingStatus)) {
    throw invalidStateTransition(`A provider in status ${provider.onboardingStatus} cannot be moved to ${to}.`)
  }
  if (action === 'offboard') {
    const upcoming = await uow.tx.appointment.count({
      where: { tenantId: uow.tenantId, providerId: id, status: 'CONFIRMED', endsAt: { gt: now } },
    })
    if (upcoming > 0) {
      throw conflict(
        `The provider has ${upcoming} upcoming CONFIRMED appointment(s); cancel or move them before offboarding.`
      )
    }
  }
  await uow.tx.provider.update({
    where: { id },
    data: {
      onboardingStatus: to,
      ...(to === 'APPROVED' ? { approvedAt: now } : {}),
      ...(to === 'OFFBOARDED' ? { offboardedAt: now } : {}),
    },
  })
  if (to === 'APPROVED') {
    await recordEvent(uow, 'provider.approved', { providerId: id, approvedAt: now.toISOString() }, { createdAt: now })
  }
  return getProvider(uow, id)
}
