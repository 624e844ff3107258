/**
 * @module The provider onboarding workflow's state and its moves: one readonly value, {@link Onboarding}, that the
 * workflow (workflows/provider-onboarding.ts) holds and replaces with what these functions return, from its update and
 * signal handlers and from its loop. Pure and deterministic: no clock of their own (the workflow passes workflow time),
 * no Temporal, no I/O, so they are unit-tested directly (test/unit/common/provider-onboarding/onboarding-state.test.ts).
 * Which Temporal commands follow a move (an activity, a timer, a `patched()` marker) stays the workflow's business,
 * so the commands of a run, and thus the replay of recorded histories, do not depend on how the state is written.
 */
import {
  onboardingStepRefusal,
  stepTimers,
  type OnboardingOperation,
  type OnboardingStatus,
  type OnboardingStep,
  type OnboardingTiming,
  type StepTimers,
} from './onboarding-rules.ts'
import type { AcceptedStep, OnboardingState } from './provider-onboarding-contract.ts'

/** An accepted step the workflow still records itself, with the timers of the step it began. */
export interface ToRecord {
  readonly op: OnboardingOperation
  readonly timers: StepTimers
}

/** Everything the onboarding workflow holds. */
export interface Onboarding {
  readonly timing: OnboardingTiming
  readonly status: OnboardingStatus
  readonly step: OnboardingStep
  /** When the current step began (workflow time, epoch ms). */
  readonly stepStartedAt: number
  /** Reminders sent for the current step. */
  readonly remindersSent: number
  /** Reminders sent over the whole run (the result reports them). */
  readonly totalReminders: number
  /** A re-read asked for (the `providerChanged` signal). */
  readonly changed: boolean
  /** How many updates the workflow has accepted: a read that began before the latest one may predate its commit. */
  readonly accepted: number
  /** Accepted steps still to be recorded by the workflow itself, in order. */
  readonly toRecord: readonly ToRecord[]
}

/** A run's state at its start: the profile step, begun now. */
export const startOnboarding = (timing: OnboardingTiming, now: number): Onboarding => ({
  timing,
  status: 'IN_PROGRESS',
  step: 'PROFILE',
  stepStartedAt: now,
  remindersSent: 0,
  totalReminders: 0,
  changed: false,
  accepted: 0,
  toRecord: [],
})

/** Whether the run goes on: in progress, or accepted steps still to record. */
export const isOpen = (s: Onboarding): boolean => s.status === 'IN_PROGRESS' || s.toRecord.length > 0

/** The timers of a step that begins at `startedAt`. */
export function timersFrom(s: Onboarding, startedAt: number): StepTimers {
  const { deadlineAt, reminderAt } = stepTimers(startedAt, 0, s.timing)
  return { stepStartedAt: startedAt, stepDeadlineAt: deadlineAt, nextReminderAt: reminderAt }
}

/** When the current step times out and is next reminded. */
export const currentTimers = (s: Onboarding) => stepTimers(s.stepStartedAt, s.remindersSent, s.timing)

/** Takes a state the database reports (a verification's outcome, a reconciliation): a new step restarts its timers. */
export function follow(s: Onboarding, next: OnboardingState, timers: StepTimers): Onboarding {
  const stepMoved =
    next.step === s.step ? {} : { step: next.step, stepStartedAt: timers.stepStartedAt, remindersSent: 0 }
  return { ...s, ...stepMoved, status: next.status }
}

/**
 * Whether a read the database answered may be older than an update accepted while it ran (`acceptedBefore` is the
 * count when it was scheduled) and only says the onboarding is still in progress: the workflow then keeps its step
 * (behind the KEEP_ACCEPTED_STEP patch, which it asks only when this holds).
 */
export const readMayPredateAcceptedStep = (s: Onboarding, read: OnboardingState, acceptedBefore: number): boolean =>
  s.accepted !== acceptedBefore && read.status === 'IN_PROGRESS'

/**
 * Why an update is refused now, or undefined: only while in progress and (when given) at `expected`, and a retried
 * verification not while one is queued.
 */
export function updateRefusal(s: Onboarding, expected: OnboardingStep | undefined, retry = false): string | undefined {
  const refusal = onboardingStepRefusal(s.status, s.step, expected)
  if (refusal !== undefined) return refusal
  if (retry && s.toRecord.some((r) => r.op.action === 'verifyLicence'))
    return 'The licence is being verified right now.'
  return undefined
}

/**
 * Accepts a step: moves at once, so timers and later updates see it, and queues what the workflow records.
 * @param next - what changes (the step, or the status); the rest stays
 * @returns the state after it and the update's answer
 */
export function accept(
  s: Onboarding,
  next: Partial<OnboardingState>,
  ops: readonly OnboardingOperation[],
  now: number
): { onboarding: Onboarding; answer: AcceptedStep } {
  const timers = timersFrom(s, now)
  const moved = follow({ ...s, accepted: s.accepted + 1 }, { status: s.status, step: s.step, ...next }, timers)
  const onboarding = { ...moved, toRecord: [...moved.toRecord, ...ops.map((op) => ({ op, timers }))] }
  return { onboarding, answer: { status: onboarding.status, step: onboarding.step, timers } }
}

/** The first accepted step still to record, taken off the queue. */
export function nextToRecord(s: Onboarding): { onboarding: Onboarding; next: ToRecord | undefined } {
  const [next, ...rest] = s.toRecord
  return { onboarding: { ...s, toRecord: rest }, next }
}

/** Whether a recorded verification's outcome is news to follow: nothing queued after it, still in progress. */
export const takesVerification = (s: Onboarding, recorded: ToRecord): boolean =>
  recorded.op.action === 'verifyLicence' && s.toRecord.length === 0 && s.status === 'IN_PROGRESS'

/** Whether the loop's wait for `current` ends: something to record, a move, or a re-read asked for. */
export const interrupted = (s: Onboarding, current: OnboardingStep): boolean =>
  s.toRecord.length > 0 || s.step !== current || s.status !== 'IN_PROGRESS' || s.changed

export const changeSignalled = (s: Onboarding): Onboarding => ({ ...s, changed: true })
export const changeTaken = (s: Onboarding): Onboarding => ({ ...s, changed: false })

/** The step timed out: decided in this turn, so from here on every update is refused. */
export const timedOut = (s: Onboarding): Onboarding => ({ ...s, status: 'TIMED_OUT' })

/** A reminder of the current step is going out: counted, with when the next one falls. */
export function reminderDue(s: Onboarding): { onboarding: Onboarding; nextReminderAt: number | null } {
  const onboarding = { ...s, remindersSent: s.remindersSent + 1, totalReminders: s.totalReminders + 1 }
  return { onboarding, nextReminderAt: currentTimers(onboarding).reminderAt }
}

/** The `onboardingState` query's answer. */
export function view(s: Onboarding) {
  const { deadlineAt, reminderAt } = currentTimers(s)
  return {
    status: s.status,
    step: s.step,
    stepDeadlineAt: new Date(deadlineAt).toISOString(),
    nextReminderAt: reminderAt ? new Date(reminderAt).toISOString() : null,
  }
}

/** What operators see of the run (its current details). */
export const details = (s: Onboarding): string =>
  `Status: ${s.status} · step: ${s.step} · reminders sent for it: ${s.remindersSent}`
