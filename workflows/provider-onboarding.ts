/**
 * @module The provider onboarding workflow: one run per onboarding attempt of a provider, through profile, credential
 * documents, licence verification, background check and an admin's approval (common/provider-onboarding/onboarding-rules.ts).
 * While a step waits, reminders go out every few days, and a step that waits too long times the onboarding out.
 *
 * The workflow is the authority on the steps: the API asks for each with a Temporal update, which the workflow accepts
 * or refuses against its current step and its timers in one synchronous turn, and answers with the accepted state.
 * So an approval and the timeout can never both win: once the timeout fires the status has left IN_PROGRESS before
 * anything is awaited, and a later update is refused; an update accepted first resets the step's timers. The API
 * records an accepted step in its own transaction (domain/provider-onboarding/onboarding-steps.ts); the workflow then records
 * it again through an activity, a no-op unless that request failed to commit. Licence verification runs by itself
 * once the documents are accepted; approval ends in the providers domain's own approve operation
 * (`provider.approved`, the provider bookable).
 */
import * as wf from '@temporalio/workflow'
import type { UpdateDefinition } from '@temporalio/common'
import { standardActivityOptions } from './activity-options.ts'
import {
  DEFAULT_ONBOARDING_TIMING,
  stepAfterVerification,
  type OnboardingOperation,
  type OnboardingStep,
} from '../common/provider-onboarding/onboarding-rules.ts'
import {
  accept,
  changeSignalled,
  changeTaken,
  currentTimers,
  details,
  follow,
  interrupted,
  isOpen,
  nextToRecord,
  readMayPredateAcceptedStep,
  reminderDue,
  startOnboarding,
  takesVerification,
  timedOut,
  timersFrom,
  updateRefusal,
  view,
  type Onboarding,
} from '../common/provider-onboarding/onboarding-state.ts'
import {
  approveOnboardingUpdate,
  confirmProfileUpdate,
  onboardingStateQuery,
  providerChangedSignal,
  recordBackgroundCheckUpdate,
  rejectOnboardingUpdate,
  retryLicenceVerificationUpdate,
  submitDocumentsUpdate,
  type AcceptedStep,
  type OnboardingState,
  type ProviderOnboardingActivities,
  type ProviderOnboardingInput,
  type ProviderOnboardingResult,
} from '../common/provider-onboarding/provider-onboarding-contract.ts'

const activities = wf.proxyActivities<ProviderOnboardingActivities>(standardActivityOptions('30 seconds'))

/**
 * Patch: admins are told at once when an onboarding reaches their approval (before, the first word they got was the
 * reminder three days later). Runs started before this change replay without the notice (docs/workflows.md).
 */
const READY_FOR_APPROVAL_NOTICE = 'ready-for-approval-notice'

/**
 * The `patched()` id of a step accepted by an update standing through a database read made before the API committed
 * it. A reminder's read (or a provider-changed reload) that began before an update was accepted can still show the
 * step before it; taking that read moved the workflow back a step until its own recording caught up, and the API's
 * next step, asked for at once, was refused (seen under load: the documents answered BACKGROUND_CHECK, and the
 * background check right after was refused "at step DOCUMENTS"). A read that closes the onboarding (approved or
 * offboarded outside the workflow) is still taken. Runs started before this replay as they ran.
 */
const KEEP_ACCEPTED_STEP = 'onboarding-keep-accepted-step'

const refuse = (message: string): never => {
  throw wf.ApplicationFailure.create({ type: 'invalid_state_transition', message, nonRetryable: true })
}

/**
 * A run's one mutable cell: its onboarding, replaced whole by the pure moves of onboarding-state.ts, from the
 * handlers (between the loop's awaits) and from the loop.
 */
interface Run {
  onboarding: Onboarding
}

/**
 * Takes a state an activity read from the database, unless an update was accepted while it ran and the read only says
 * the onboarding is still in progress (KEEP_ACCEPTED_STEP, asked only then). The timers are taken after the read, as
 * the step may have moved while it ran.
 */
function followRead(run: Run, read: OnboardingState, acceptedBefore: number): void {
  if (readMayPredateAcceptedStep(run.onboarding, read, acceptedBefore) && wf.patched(KEEP_ACCEPTED_STEP)) return
  run.onboarding = follow(run.onboarding, read, timersFrom(run.onboarding, run.onboarding.stepStartedAt))
}

/**
 * An update the API drives, valid only while in progress and (when given) at `expected` (and, for a retried
 * verification, not while one is queued); accepted as `next` says: what changes, then what the workflow records.
 */
function stepUpdate<Args extends unknown[]>(
  run: Run,
  update: UpdateDefinition<AcceptedStep, Args>,
  expected: OnboardingStep | undefined,
  next: (...args: Args) => [Partial<OnboardingState>, ...OnboardingOperation[]],
  retry = false
) {
  wf.setHandler<AcceptedStep, Args, UpdateDefinition<AcceptedStep, Args>>(
    update,
    (...args) => {
      const [to, ...ops] = next(...args)
      const { onboarding, answer } = accept(run.onboarding, to, ops, Date.now())
      run.onboarding = onboarding
      return answer
    },
    {
      validator: () => {
        const refusal = updateRefusal(run.onboarding, expected, retry)
        if (refusal !== undefined) refuse(refusal)
      },
    }
  )
}

/** The handlers: the API's step updates, the provider-changed signal and the state query. */
function setHandlers(run: Run): void {
  stepUpdate(run, confirmProfileUpdate, 'PROFILE', () => [{ step: 'DOCUMENTS' }, { action: 'confirmProfile' }])
  // The licence is verified with the documents: a pass goes straight on to the background check.
  stepUpdate(run, submitDocumentsUpdate, 'DOCUMENTS', (documents, verified) => [
    { step: stepAfterVerification(verified) },
    { action: 'submitDocuments', documents },
    { action: 'verifyLicence' },
  ])
  stepUpdate(
    run,
    retryLicenceVerificationUpdate,
    'LICENCE_VERIFICATION',
    (verified) => [{ step: stepAfterVerification(verified) }, { action: 'verifyLicence' }],
    true
  )
  stepUpdate(run, recordBackgroundCheckUpdate, 'BACKGROUND_CHECK', (result) => [
    { step: 'ADMIN_APPROVAL' },
    { action: 'recordBackgroundCheck', result },
  ])
  stepUpdate(run, approveOnboardingUpdate, 'ADMIN_APPROVAL', () => [{ status: 'APPROVED' }, { action: 'approve' }])
  stepUpdate(run, rejectOnboardingUpdate, undefined, ({ reason }) => [
    { status: 'REJECTED' },
    { action: 'reject', reason },
  ])
  wf.setHandler(providerChangedSignal, () => {
    run.onboarding = changeSignalled(run.onboarding)
  })
  wf.setHandler(onboardingStateQuery, () => view(run.onboarding))
}

export async function providerOnboardingWorkflow(input: ProviderOnboardingInput): Promise<ProviderOnboardingResult> {
  const ref = { tenantId: input.tenantId, providerId: input.providerId, attempt: input.attempt }
  const run: Run = { onboarding: startOnboarding({ ...DEFAULT_ONBOARDING_TIMING, ...input.timing }, Date.now()) }
  setHandlers(run)

  try {
    while (isOpen(run.onboarding)) {
      wf.setCurrentDetails(details(run.onboarding))
      const taken = nextToRecord(run.onboarding)
      if (taken.next) {
        const { next } = taken
        run.onboarding = taken.onboarding
        const recorded = await activities.applyOnboardingStep({ ...ref, op: next.op, timers: next.timers })
        // Only a verification the API's request did not record (it failed to commit) can tell the workflow news.
        if (takesVerification(run.onboarding, next)) run.onboarding = follow(run.onboarding, recorded, next.timers)
        if (next.op.action === 'recordBackgroundCheck' && wf.patched(READY_FOR_APPROVAL_NOTICE)) {
          await activities.notifyReadyForApproval(ref)
        }
        continue
      }
      const { deadlineAt, reminderAt } = currentTimers(run.onboarding)
      const current = run.onboarding.step
      const woken = await wf.condition(
        () => interrupted(run.onboarding, current),
        Math.max(1, Math.min(deadlineAt, reminderAt ?? Number.POSITIVE_INFINITY) - Date.now())
      )
      if (run.onboarding.changed) {
        run.onboarding = changeTaken(run.onboarding)
        // Approved or offboarded outside the workflow: take the provider's word for it.
        const acceptedBefore = run.onboarding.accepted
        followRead(run, await activities.reloadOnboarding(ref), acceptedBefore)
        continue
      }
      if (woken) continue
      if (Date.now() >= deadlineAt) {
        // Decided in this turn: from here on every update is refused.
        run.onboarding = timedOut(run.onboarding)
        // An approval made outside the workflow meanwhile wins over the timeout (the activity reports it).
        const closed = await activities.closeOnboarding({ ...ref, status: 'TIMED_OUT' })
        run.onboarding = follow(run.onboarding, closed, timersFrom(run.onboarding, run.onboarding.stepStartedAt))
        break
      }
      const due = reminderDue(run.onboarding)
      run.onboarding = due.onboarding
      const { step, remindersSent } = run.onboarding
      const acceptedBefore = run.onboarding.accepted
      const read = await activities.recordOnboardingReminder({
        ...ref,
        step,
        reminder: remindersSent,
        nextReminderAt: due.nextReminderAt,
      })
      followRead(run, read, acceptedBefore)
    }
    // Updates answered moments ago complete before the workflow does.
    await wf.condition(wf.allHandlersFinished)
    const { status, step, totalReminders } = run.onboarding
    wf.log.info('provider onboarding closed', { providerId: input.providerId, status, step })
    return { status, step, remindersSent: totalReminders }
  } catch (error) {
    if (!wf.isCancellation(error)) throw error
    // Cancelled through the API (DELETE), which records CANCELLED itself; this covers a cancellation from elsewhere.
    await wf.CancellationScope.nonCancellable(() => activities.closeOnboarding({ ...ref, status: 'CANCELLED' }))
    throw error
  }
}
