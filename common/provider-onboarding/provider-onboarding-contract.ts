/**
 * @module Message contracts of the provider onboarding workflow, shared by the API and the workflow. Each step the API
 * drives is a Temporal update: the workflow accepts it against its current step and timers (a refusal is
 * `invalid_state_transition`) and answers with the accepted state and the new step's timers, which the API records,
 * so the API returns the workflow's decision rather than a guess. Payloads carry ids, references and outcomes only.
 */
import { defineQuery, defineSignal, defineUpdate } from '@temporalio/workflow'
import type {
  DocumentType,
  OnboardingOperation,
  OnboardingStatus,
  OnboardingStep,
  OnboardingTiming,
  StepTimers,
} from './onboarding-rules.ts'

export const PROVIDER_ONBOARDING_WORKFLOW = 'providerOnboardingWorkflow'
export const PROVIDER_ONBOARDING_KIND = 'provider-onboarding'

/**
 * One workflow per onboarding attempt of a provider: derived from tenant, provider and attempt, so a start is
 * idempotent and a new attempt after a timeout or cancellation never lands on the closing run of the last one.
 */
export const providerOnboardingWorkflowId = (tenantId: string, providerId: string, attempt: number) =>
  `${PROVIDER_ONBOARDING_KIND}:${tenantId}:${providerId}:${attempt}`

export interface ProviderOnboardingInput {
  tenantId: string
  providerId: string
  /** The attempt (1, 2, ...) this run drives; activities refuse to touch another attempt's row. */
  attempt: number
  timing?: Partial<OnboardingTiming>
}

export interface OnboardingState {
  status: OnboardingStatus
  step: OnboardingStep
}

/** An update's answer: the state the workflow accepted, and the timers of the step that begins with it. */
export interface AcceptedStep extends OnboardingState {
  timers: StepTimers
}

export interface ProviderOnboardingResult extends OnboardingState {
  remindersSent: number
}

export interface SubmittedDocument {
  type: DocumentType
  /** Where the document is kept (a document-store id or URL); never its content. */
  reference: string
}

export interface BackgroundCheckResult {
  outcome: 'CLEAR' | 'NOT_CLEAR'
  /** The screening vendor's report id. */
  reference: string
}

export const confirmProfileUpdate = defineUpdate<AcceptedStep, []>('confirmProfile')
/**
 * The documents, and whether the licence verification the API ran on them passed (the domain rule decides the
 * outcome; the workflow decides whether the step may be taken now, and moves to BACKGROUND_CHECK when it passed).
 */
export const submitDocumentsUpdate = defineUpdate<AcceptedStep, [SubmittedDocument[], boolean]>('submitDocuments')
/** The licence verification run again (after the provider's credentials were corrected), and whether it passed. */
export const retryLicenceVerificationUpdate = defineUpdate<AcceptedStep, [boolean]>('retryLicenceVerification')
export const recordBackgroundCheckUpdate = defineUpdate<AcceptedStep, [BackgroundCheckResult]>('recordBackgroundCheck')
/** An admin's approval: ends in `provider.approved`, and the provider is bookable. */
export const approveOnboardingUpdate = defineUpdate<AcceptedStep, []>('approveOnboarding')
export const rejectOnboardingUpdate = defineUpdate<AcceptedStep, [{ reason: string }]>('rejectOnboarding')
/**
 * The provider was moved outside the workflow (B's approve, suspend or offboard operations): the workflow re-reads
 * its status and closes if the provider was approved or offboarded meanwhile.
 */
export const providerChangedSignal = defineSignal<[]>('providerChanged')
export const onboardingStateQuery = defineQuery<
  OnboardingState & { stepDeadlineAt: string; nextReminderAt: string | null }
>('onboardingState')

/** The onboarding attempt an activity works on; activities refuse to touch another attempt's row. */
export interface OnboardingActivityRef {
  tenantId: string
  providerId: string
  attempt: number
}

/**
 * The provider onboarding activities (activities/provider-onboarding-activities.ts) as the workflow proxies them. The factory declares that it returns this
 * interface, so the compiler checks the two agree. Names, arguments and results are in recorded histories: changing
 * one breaks the replay of runs in flight.
 */
export interface ProviderOnboardingActivities {
  /** Records a step the workflow accepted (a no-op when the API request already did). */
  applyOnboardingStep: (
    input: OnboardingActivityRef & { op: OnboardingOperation; timers: StepTimers }
  ) => Promise<OnboardingState>
  /** Tells admins the onboarding waits for their decision (while it still does). */
  notifyReadyForApproval: (input: OnboardingActivityRef) => Promise<void>
  /** Re-reads the provider after it was moved outside the workflow (approved or offboarded there). */
  reloadOnboarding: (input: OnboardingActivityRef) => Promise<OnboardingState>
  /** TIMED_OUT or CANCELLED, unless the provider was approved outside meanwhile. */
  closeOnboarding: (input: OnboardingActivityRef & { status: 'TIMED_OUT' | 'CANCELLED' }) => Promise<OnboardingState>
  /** A reminder that the step still waits. */
  recordOnboardingReminder: (
    input: OnboardingActivityRef & { step: OnboardingStep; reminder: number; nextReminderAt: number | null }
  ) => Promise<OnboardingState>
}
