/**
 * @module The steps of a provider's onboarding as database operations. The onboarding workflow decides every step
 * (a Temporal update accepted or refused against its current step and timers); the step is then recorded here — by
 * the API request that asked for it, in its own transaction, and again by the workflow's activity, in case that
 * request did not commit. Recording is therefore idempotent: a step already recorded (the row is at a later step or
 * closed) answers the row's state and changes nothing. The provider's own status moves only through the providers
 * domain (domain/provider-onboarding/onboarding-status.ts): submit-for-review when the background check is in, approve at the end —
 * the same operations as `POST /v1/providers/{id}/approve`, so `provider.approved` is recorded in one place.
 */
import type { Prisma } from '../../generated/prisma/client.ts'
import type { UnitOfWork } from '../../infra/unit-of-work.ts'
import { PROVIDER_ONBOARDING_KIND } from '../../common/provider-onboarding/provider-onboarding-contract.ts'
import { localDateOf } from '../assessments/due-day.ts'
import { recordCareNotification } from '../care-notifications/care-notifications.ts'
import { invalidStateTransition, validationError } from '../errors.ts'
import { transitionProvider } from './onboarding-status.ts'
import { readCredentials } from '../providers/credentials.ts'
import { documentGaps, profileGaps, verifyLicence } from './onboarding-checks.ts'
import {
  type OnboardingOperation,
  type OnboardingStep,
  type StepTimers,
} from '../../common/provider-onboarding/onboarding-rules.ts'

import {
  advance,
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
 * What the API checks before it asks the workflow for a step, so a request the step's rules refuse never moves the
 * workflow: the step must be the row's current one, the profile complete, the documents there. For the documents and
 * a renewed verification it also verifies the licence, whose outcome decides the step the workflow moves to.
 * @throws AppError `not_found`, `invalid_state_transition`, `validation_error`
 */
export async function checkStepRequest(
  uow: UnitOfWork,
  providerId: string,
  op: OnboardingOperation,
  expected: OnboardingStep | undefined,
  now: Date
) {
  const provider = await providerOf(uow, providerId)
  await uow.tx
    .$queryRaw`SELECT provider_id FROM provider_onboardings WHERE provider_id = ${providerId} AND tenant_id = ${uow.tenantId} FOR UPDATE`
  const row = await findRow(uow, providerId)
  if (!row || row.status !== 'IN_PROGRESS') {
    throw invalidStateTransition(`No onboarding of this provider is in progress${row ? ` (it is ${row.status})` : ''}.`)
  }
  if (expected && row.step !== expected)
    throw invalidStateTransition(`The onboarding is at step ${row.step}, not ${expected}.`)
  if (op.action === 'confirmProfile') {
    const gaps = profileGaps(provider)
    if (gaps.length > 0)
      throw validationError(gaps, "The provider's profile is incomplete; complete it with PATCH /v1/providers/{id}.")
  }
  if (op.action === 'submitDocuments') {
    const gaps = documentGaps(op.documents)
    if (gaps.length > 0) throw validationError(gaps)
  }
  const documents = op.action === 'submitDocuments' ? op.documents : (row.documents as Array<{ type: string }>)
  const licenceVerified =
    verifyLicence(readCredentials(provider.credentials), documents, localDateOf(now, provider.timeZone)).outcome ===
    'VERIFIED'
  return { row, licenceVerified }
}

/**
 * One per verification the workflow accepted: the request and the workflow's activity record the same one, so the
 * notification under this key also marks that acceptance's failed check as recorded.
 */
const licenceCheckKey = (ref: OnboardingRef, timers: StepTimers) =>
  `${PROVIDER_ONBOARDING_KIND}:${ref.providerId}:${ref.attempt}:licence:${timers.stepStartedAt}`

/**
 * Whether the request that the workflow accepted this verification for already recorded its (failed) outcome. The
 * workflow's activity must then not verify again: credentials corrected since would pass a check nobody asked for.
 */
async function licenceCheckRecorded(uow: UnitOfWork, ref: OnboardingRef, timers: StepTimers) {
  const found = await uow.tx.careNotification.findFirst({
    where: { tenantId: uow.tenantId, dedupeKey: licenceCheckKey(ref, timers) },
    select: { id: true },
  })
  return found !== null
}

/**
 * Verifies the licence (domain rules over the provider's credentials and the documents): VERIFIED moves on to the
 * background check; FAILED stays, with the reasons recorded and a notification to the provider, until the
 * credentials are corrected and verification is asked for again.
 */
async function checkLicence(
  uow: UnitOfWork,
  ref: OnboardingRef,
  row: { documents: Prisma.JsonValue },
  timers: StepTimers,
  now: Date
) {
  const provider = await providerOf(uow, ref.providerId)
  const result = verifyLicence(
    readCredentials(provider.credentials),
    row.documents as Array<{ type: string }>,
    localDateOf(now, provider.timeZone)
  )
  const verification = { ...result, checkedAt: now.toISOString() } as unknown as Prisma.InputJsonObject
  if (result.outcome === 'VERIFIED') {
    return advance(
      uow,
      ref.providerId,
      'BACKGROUND_CHECK',
      { licenceVerification: verification, licenceVerifiedAt: now },
      timers,
      now
    )
  }
  await uow.tx.providerOnboarding.update({
    where: { providerId: ref.providerId },
    data: { licenceVerification: verification },
  })
  await recordCareNotification(uow, {
    workflowKind: PROVIDER_ONBOARDING_KIND,
    kind: 'ONBOARDING_LICENCE_NOT_VERIFIED',
    providerId: ref.providerId,
    details: { step: 'LICENCE_VERIFICATION', audience: 'PROVIDER', attempt: ref.attempt, reasons: result.reasons },
    dedupeKey: licenceCheckKey(ref, timers),
  })
  return { status: 'IN_PROGRESS' as const, step: 'LICENCE_VERIFICATION' as const }
}

/**
 * Records a step the workflow accepted. Idempotent: a step already recorded answers the row's state.
 * @param timers - the timers of the step that begins (from the workflow's acceptance)
 */
export async function applyStep(
  uow: UnitOfWork,
  ref: OnboardingRef,
  op: OnboardingOperation,
  timers: StepTimers,
  now: Date
): Promise<OnboardingStateValue> {
  const row = await lockRow(uow, ref)
  const state = stateOf(row)
  switch (op.action) {
    case 'confirmProfile':
      return waitsFor(row, 'PROFILE')
        ? advance(uow, ref.providerId, 'DOCUMENTS', { profileConfirmedAt: now }, timers, now)
        : state
    case 'submitDocuments':
      return waitsFor(row, 'DOCUMENTS')
        ? advance(
            uow,
            ref.providerId,
            'LICENCE_VERIFICATION',
            { documents: op.documents, documentsSubmittedAt: now },
            timers,
            now
          )
        : state
    case 'verifyLicence':
      if (!waitsFor(row, 'LICENCE_VERIFICATION') || (await licenceCheckRecorded(uow, ref, timers))) return state
      return checkLicence(uow, ref, row, timers, now)
    case 'recordBackgroundCheck': {
      if (!waitsFor(row, 'BACKGROUND_CHECK')) return state
      const provider = await providerOf(uow, ref.providerId)
      if (provider.onboardingStatus === 'INVITED') await transitionProvider(uow, ref.providerId, 'submitForReview', now)
      return advance(
        uow,
        ref.providerId,
        'ADMIN_APPROVAL',
        { backgroundCheck: op.result, backgroundCheckCompletedAt: now },
        timers,
        now
      )
    }
    case 'approve':
      if (!waitsFor(row, 'ADMIN_APPROVAL')) return state
      await transitionProvider(uow, ref.providerId, 'approve', now)
      return closeRow(uow, ref.providerId, 'APPROVED', now)
    case 'reject':
      return row.status === 'IN_PROGRESS' ? closeRow(uow, ref.providerId, 'REJECTED', now, op.reason) : state
  }
}
