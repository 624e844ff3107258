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
  onboardingStepRefusal,
  stepAfterVerification,
  stepTimers,
  type OnboardingOperation,
  type OnboardingStatus,
  type OnboardingStep,
  type StepTimers,
} from '../common/provider-onboarding/onboarding-rules.ts'
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

export async function providerOnboardingWorkflow(input: ProviderOnboardingInput): Promise<ProviderOnboardingResult> {
  const timing = { ...DEFAULT_ONBOARDING_TIMING, ...input.timing }
  const ref = { tenantId: input.tenantId, providerId: input.providerId, attempt: input.attempt }
  // Widened on purpose (`as`): the update handlers change these between awaits, which TypeScript's narrowing cannot see.
  let status = 'IN_PROGRESS' as OnboardingStatus
  let step = 'PROFILE' as OnboardingStep
  let stepStartedAt = Date.now()
  let remindersSent = 0
  let totalReminders = 0
  let changed = false as boolean
  /** How many updates the workflow has accepted: a read that began before the latest one may predate its commit. */
  let accepted = 0
  /** Accepted steps still to be recorded by the workflow itself, in order. */
  const toRecord: Array<{ op: OnboardingOperation; timers: StepTimers }> = []
  const verificationQueued = () => toRecord.some((r) => r.op.action === 'verifyLicence')

  /** The timers of a step that begins at `startedAt`. */
  const timersFrom = (startedAt: number): StepTimers => {
    const { deadlineAt, reminderAt } = stepTimers(startedAt, 0, timing)
    return { stepStartedAt: startedAt, stepDeadlineAt: deadlineAt, nextReminderAt: reminderAt }
  }

  /** Takes a state the database reports (a verification's outcome, a reconciliation). */
  function follow(next: OnboardingState, timers: StepTimers): void {
    if (next.step !== step) {
      step = next.step
      stepStartedAt = timers.stepStartedAt
      remindersSent = 0
    }
    status = next.status
  }

  /**
   * Takes a state an activity read from the database, unless an update was accepted while it ran (`acceptedBefore`
   * is the count when it was scheduled) and the read only says the onboarding is still in progress (KEEP_ACCEPTED_STEP).
   */
  function followRead(read: OnboardingState, acceptedBefore: number, timers: StepTimers): void {
    if (accepted !== acceptedBefore && read.status === 'IN_PROGRESS' && wf.patched(KEEP_ACCEPTED_STEP)) return
    follow(read, timers)
  }

  /** Accepts a step: moves at once, so timers and later updates see it, and queues what the workflow records. */
  function accept(next: OnboardingState, ...ops: OnboardingOperation[]): AcceptedStep {
    accepted++
    const timers = timersFrom(Date.now())
    follow(next, timers)
    for (const op of ops) toRecord.push({ op, timers })
    return { status, step, timers }
  }

  /** An update the API drives, valid only while in progress and (when given) at `expected`. */
  function stepUpdate<Args extends unknown[]>(
    update: UpdateDefinition<AcceptedStep, Args>,
    expected: OnboardingStep | undefined,
    handler: (...args: Args) => AcceptedStep,
    extraCheck?: () => void
  ) {
    wf.setHandler<AcceptedStep, Args, UpdateDefinition<AcceptedStep, Args>>(update, handler, {
      validator: () => {
        const refusal = onboardingStepRefusal(status, step, expected)
        if (refusal !== undefined) refuse(refusal)
        extraCheck?.()
      },
    })
  }

  stepUpdate(confirmProfileUpdate, 'PROFILE', () => accept({ status, step: 'DOCUMENTS' }, { action: 'confirmProfile' }))
  // The licence is verified with the documents: a pass goes straight on to the background check.
  const afterVerification = stepAfterVerification
  stepUpdate(submitDocumentsUpdate, 'DOCUMENTS', (documents, verified) =>
    accept(
      { status, step: afterVerification(verified) },
      { action: 'submitDocuments', documents },
      { action: 'verifyLicence' }
    )
  )
  stepUpdate(
    retryLicenceVerificationUpdate,
    'LICENCE_VERIFICATION',
    (verified) => accept({ status, step: afterVerification(verified) }, { action: 'verifyLicence' }),
    () => verificationQueued() && refuse('The licence is being verified right now.')
  )
  stepUpdate(recordBackgroundCheckUpdate, 'BACKGROUND_CHECK', (result) =>
    accept({ status, step: 'ADMIN_APPROVAL' }, { action: 'recordBackgroundCheck', result })
  )
  stepUpdate(approveOnboardingUpdate, 'ADMIN_APPROVAL', () =>
    accept({ status: 'APPROVED', step }, { action: 'approve' })
  )
  stepUpdate(rejectOnboardingUpdate, undefined, ({ reason }) =>
    accept({ status: 'REJECTED', step }, { action: 'reject', reason })
  )
  wf.setHandler(providerChangedSignal, () => {
    changed = true
  })
  wf.setHandler(onboardingStateQuery, () => {
    const { deadlineAt, reminderAt } = stepTimers(stepStartedAt, remindersSent, timing)
    return {
      status,
      step,
      stepDeadlineAt: new Date(deadlineAt).toISOString(),
      nextReminderAt: reminderAt ? new Date(reminderAt).toISOString() : null,
    }
  })

  try {
    while (status === 'IN_PROGRESS' || toRecord.length > 0) {
      wf.setCurrentDetails(`Status: ${status} · step: ${step} · reminders sent for it: ${remindersSent}`)
      const next = toRecord.shift()
      if (next) {
        const recorded = await activities.applyOnboardingStep({ ...ref, op: next.op, timers: next.timers })
        // Only a verification the API's request did not record (it failed to commit) can tell the workflow news.
        if (next.op.action === 'verifyLicence' && toRecord.length === 0 && status === 'IN_PROGRESS')
          follow(recorded, next.timers)
        if (next.op.action === 'recordBackgroundCheck' && wf.patched(READY_FOR_APPROVAL_NOTICE)) {
          await activities.notifyReadyForApproval(ref)
        }
        continue
      }
      const { deadlineAt, reminderAt } = stepTimers(stepStartedAt, remindersSent, timing)
      const current = step
      const woken = await wf.condition(
        () => toRecord.length > 0 || step !== current || status !== 'IN_PROGRESS' || changed,
        Math.max(1, Math.min(deadlineAt, reminderAt ?? Number.POSITIVE_INFINITY) - Date.now())
      )
      if (changed) {
        changed = false
        // Approved or offboarded outside the workflow: take the provider's word for it.
        const acceptedBefore = accepted
        followRead(await activities.reloadOnboarding(ref), acceptedBefore, timersFrom(stepStartedAt))
        continue
      }
      if (woken) continue
      if (Date.now() >= deadlineAt) {
        // Decided in this turn: from here on every update is refused.
        status = 'TIMED_OUT'
        // An approval made outside the workflow meanwhile wins over the timeout (the activity reports it).
        follow(await activities.closeOnboarding({ ...ref, status: 'TIMED_OUT' }), timersFrom(stepStartedAt))
        break
      }
      remindersSent++
      totalReminders++
      const nextReminderAt = stepTimers(stepStartedAt, remindersSent, timing).reminderAt
      const acceptedBefore = accepted
      followRead(
        await activities.recordOnboardingReminder({ ...ref, step, reminder: remindersSent, nextReminderAt }),
        acceptedBefore,
        timersFrom(stepStartedAt)
      )
    }
    // Updates answered moments ago complete before the workflow does.
    await wf.condition(wf.allHandlersFinished)
    wf.log.info('provider onboarding closed', { providerId: input.providerId, status, step })
    return { status, step, remindersSent: totalReminders }
  } catch (error) {
    if (!wf.isCancellation(error)) throw error
    // Cancelled through the API (DELETE), which records CANCELLED itself; this covers a cancellation from elsewhere.
    await wf.CancellationScope.nonCancellable(() => activities.closeOnboarding({ ...ref, status: 'CANCELLED' }))
    throw error
  }
}
