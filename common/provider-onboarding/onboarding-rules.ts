/**
 * @module The rules of provider onboarding the workflow runs (docs/domain.md, 'Provider onboarding checks'): the
 * steps in order, the operations a step records, which step may be taken when, and the reminder and timeout schedule
 * of a step. What a complete profile is, which documents are required and when a licence counts as verified are the
 * domain's checks (domain/provider-onboarding/onboarding-checks.ts), which answer with the domain's field errors.
 */
import { DAY_MS } from '../time/calendar.ts'
/** The steps, in order. LICENCE_VERIFICATION runs by itself once documents are in; the others wait for the API. */
export const ONBOARDING_STEPS = [
  'PROFILE',
  'DOCUMENTS',
  'LICENCE_VERIFICATION',
  'BACKGROUND_CHECK',
  'ADMIN_APPROVAL',
] as const
export type OnboardingStep = (typeof ONBOARDING_STEPS)[number]

export type OnboardingStatus = 'IN_PROGRESS' | 'APPROVED' | 'REJECTED' | 'TIMED_OUT' | 'CANCELLED'

export const DOCUMENT_TYPES = [
  'LICENSE',
  'DEGREE',
  'CERTIFICATION',
  'LIABILITY_INSURANCE',
  'IDENTITY',
  'OTHER',
] as const
export type DocumentType = (typeof DOCUMENT_TYPES)[number]

/** When the step that begins now times out and is next reminded (computed by the workflow, which owns the timers). */
export interface StepTimers {
  stepStartedAt: number
  stepDeadlineAt: number
  nextReminderAt: number | null
}

/** A step as the workflow accepted it, with what it records. */
export type OnboardingOperation =
  | { action: 'confirmProfile' }
  | { action: 'submitDocuments'; documents: Array<{ type: DocumentType; reference: string }> }
  | { action: 'verifyLicence' }
  | { action: 'recordBackgroundCheck'; result: { outcome: 'CLEAR' | 'NOT_CLEAR'; reference: string } }
  | { action: 'approve' }
  | { action: 'reject'; reason: string }

export const BACKGROUND_CHECK_OUTCOMES = ['CLEAR', 'NOT_CLEAR'] as const

export interface OnboardingTiming {
  /** Length of a day in ms (86 400 000; tests shorten it). */
  dayMs: number
  /** A reminder every this many days while a step waits for someone. */
  reminderEveryDays: number
  /** A step that waits this long times the onboarding out. */
  stepTimeoutDays: number
}

export const DEFAULT_ONBOARDING_TIMING: OnboardingTiming = {
  dayMs: DAY_MS,
  reminderEveryDays: 3,
  stepTimeoutDays: 14,
}

/**
 * When the step's next reminder and its timeout fall, in workflow time.
 * @param stepStartedAt - when the step began (epoch ms)
 * @param remindersSent - reminders already sent for this step
 */
export function stepTimers(stepStartedAt: number, remindersSent: number, timing: OnboardingTiming) {
  const deadlineAt = stepStartedAt + timing.stepTimeoutDays * timing.dayMs
  const reminderAt = stepStartedAt + (remindersSent + 1) * timing.reminderEveryDays * timing.dayMs
  // No reminder on (or after) the timeout itself: the timeout notice says it all.
  return { deadlineAt, reminderAt: reminderAt < deadlineAt ? reminderAt : null }
}

/**
 * Why the onboarding workflow refuses a step asked for now, or undefined when it may be taken: only while the
 * onboarding is IN_PROGRESS, and (when the step names one) only at the step it belongs to.
 * @param expected - the step the update belongs to; undefined for one valid at any step (a rejection)
 */
export function onboardingStepRefusal(
  status: OnboardingStatus,
  step: OnboardingStep,
  expected?: OnboardingStep
): string | undefined {
  if (status !== 'IN_PROGRESS') return `The onboarding is ${status}.`
  if (expected && step !== expected) return `The onboarding is at step ${step}, not ${expected}.`
  return undefined
}

/** The step after a licence verification: the background check when it passed, else waiting at the verification. */
export const stepAfterVerification = (verified: boolean): OnboardingStep =>
  verified ? 'BACKGROUND_CHECK' : 'LICENCE_VERIFICATION'
