/**
 * @module The rules of provider onboarding (docs/domain.md, 'Provider onboarding checks': licence and background check,
 * specialty verification, marketplace vetting such as Zencare's): the steps in order, what a complete profile is, which credential documents
 * are required, when a licence counts as verified, and the reminder and timeout schedule of a step.
 *
 * Free of Node imports: the workflow bundle imports it (steps, timing); the activities use the rest.
 */
import type { FieldError } from '../errors.ts'

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
/** Documents without which the documents step is refused. */
export const REQUIRED_DOCUMENTS: readonly DocumentType[] = ['LICENSE', 'IDENTITY']

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
  dayMs: 86_400_000,
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

/** What a provider's profile must have before its documents are asked for. */
export function profileGaps(provider: {
  email: string | null
  disciplines: string[]
  ageGroups: string[]
  languages: string[]
}): FieldError[] {
  const gaps: FieldError[] = []
  const missing = (path: string, what: string) =>
    gaps.push({ path, code: 'profile_incomplete', message: `The provider's profile needs ${what}.` })
  if (!provider.email) missing('email', 'an email address')
  if (provider.disciplines.length === 0) missing('disciplines', 'at least one discipline')
  if (provider.ageGroups.length === 0) missing('ageGroups', 'the age groups served')
  if (provider.languages.length === 0) missing('languages', 'the languages spoken')
  return gaps
}

/** Problems with a submitted document list: the required types must be there. */
export function documentGaps(documents: ReadonlyArray<{ type: DocumentType }>): FieldError[] {
  const types = new Set(documents.map((d) => d.type))
  return REQUIRED_DOCUMENTS.filter((type) => !types.has(type)).map((type) => ({
    path: 'documents',
    code: 'document_required',
    message: `A ${type} document is required.`,
  }))
}

export type LicenceFailure = 'NO_LICENSE' | 'LICENSE_EXPIRED' | 'LICENSE_EXPIRES_SOON' | 'NO_LICENSE_DOCUMENT'

export interface LicenceVerification {
  outcome: 'VERIFIED' | 'FAILED'
  reasons: LicenceFailure[]
  licence: { number: string; issuingCountry: string; issuingRegion: string | null; expiresOn: string | null } | null
}

/**
 * Verifies the provider's licence to practise against the credentials on record and the documents submitted: a
 * LICENSE credential valid for at least `marginDays` more days (a licence about to lapse would make the provider
 * unbookable weeks after approval), and a LICENSE document backing it. No licensing board is called (none is
 * integrated); the board's check would be one more activity with the same outcome shape.
 * @param today - YYYY-MM-DD
 */
export function verifyLicence(
  credentials: ReadonlyArray<{
    type: string
    number: string
    issuingCountry: string
    issuingRegion?: string
    expiresOn?: string
  }>,
  documents: ReadonlyArray<{ type: string }>,
  today: string,
  marginDays = 30
): LicenceVerification {
  const licences = credentials.filter((c) => c.type === 'LICENSE')
  // The licence valid longest is the one that counts (a renewed licence next to the lapsed one).
  const best = [...licences].sort((a, b) => ((a.expiresOn ?? '9999') < (b.expiresOn ?? '9999') ? 1 : -1))[0]
  const reasons: LicenceFailure[] = []
  if (!best) reasons.push('NO_LICENSE')
  else if (best.expiresOn !== undefined) {
    const margin = new Date(Date.parse(`${today}T00:00:00Z`) + marginDays * 86_400_000).toISOString().slice(0, 10)
    if (best.expiresOn <= today) reasons.push('LICENSE_EXPIRED')
    else if (best.expiresOn <= margin) reasons.push('LICENSE_EXPIRES_SOON')
  }
  if (!documents.some((d) => d.type === 'LICENSE')) reasons.push('NO_LICENSE_DOCUMENT')
  return {
    outcome: reasons.length === 0 ? 'VERIFIED' : 'FAILED',
    reasons,
    licence: best
      ? {
          number: best.number,
          issuingCountry: best.issuingCountry,
          issuingRegion: best.issuingRegion ?? null,
          expiresOn: best.expiresOn ?? null,
        }
      : null,
  }
}
