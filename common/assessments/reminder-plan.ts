/**
 * @module The assessment reminder schedule as a pure function of the due instant and now, so the workflow stays
 * deterministic and the rules are unit-tested: reminders some days before the due day, the due notice when it
 * begins, and escalations while it is overdue — the first the day after, then at a fixed interval, up to a limit.
 *
 * Free of Node imports: the workflow bundle imports it.
 */
import { DAY_MS } from '../time/calendar.ts'

/** Kinds of step; the names match the AssessmentNotificationKind enum. */
export type ReminderStepKind = 'REMINDER' | 'DUE' | 'ESCALATION'

export interface ReminderStep {
  kind: ReminderStepKind
  /** Days relative to the due day: -7, -1 before it, 0 on it, 1, 8, 15... after it. */
  daysFromDue: number
  /** When the step is due, in workflow time (epoch ms). */
  at: number
}

export interface ReminderTiming {
  /** Days before the due day on which a reminder goes out. */
  reminderDaysBefore: number[]
  /** Days between two escalations after the first (which is the day after the due day). */
  escalationEveryDays: number
  /** Most escalations; after the last the workflow only waits for completion or cancellation. */
  maxEscalations: number
  /**
   * Length of a day in milliseconds: 86 400 000 in production. Tests shorten it to run weeks in seconds; the
   * workflow then scales the real time until the due day by the same factor.
   */
  dayMs: number
}

export const DEFAULT_REMINDER_TIMING: ReminderTiming = {
  reminderDaysBefore: [7, 1],
  escalationEveryDays: 7,
  maxEscalations: 8,
  dayMs: DAY_MS,
}

/**
 * Every step for a due instant, in time order. Steps already in the past at `now` are caught up sparingly: a
 * reminder whose moment has passed is dropped (a reminder after the fact is noise), while the due notice and the
 * latest past escalation are kept so that an assessment created late is still announced once and escalated once.
 * @param dueAt - when the due day begins (workflow time)
 * @param now - the workflow's current time
 * @param timing - the schedule's parameters
 */
export function planReminderSteps(dueAt: number, now: number, timing: ReminderTiming): ReminderStep[] {
  const day = timing.dayMs
  const reminders: ReminderStep[] = [...new Set(timing.reminderDaysBefore)]
    .filter((days) => days > 0)
    .sort((a, b) => b - a)
    .map((days) => ({ kind: 'REMINDER' as const, daysFromDue: -days, at: dueAt - days * day }))
    .filter((step) => step.at > now)
  const due: ReminderStep = { kind: 'DUE', daysFromDue: 0, at: dueAt }
  const escalations: ReminderStep[] = []
  for (let n = 0; n < timing.maxEscalations; n++) {
    const daysFromDue = 1 + n * timing.escalationEveryDays
    escalations.push({ kind: 'ESCALATION', daysFromDue, at: dueAt + daysFromDue * day })
  }
  const pastEscalations = escalations.filter((step) => step.at <= now)
  const latestPast = pastEscalations.at(-1)
  const keptEscalations = escalations.filter((step) => step.at > now || step === latestPast)
  return [...reminders, due, ...keptEscalations]
}

/**
 * Which of the steps whose moment has come to carry out, and which to pass over. Normally one step is due at a time;
 * several are when the workflow could not run for a while (no worker during an outage or deploy). Escalations then
 * collapse to the latest — an outage never ends in a burst of "still overdue" notices — while reminders and the due
 * notice still go out, late but in order (each is sent once, and at most one of each kind per due date).
 * @param pending - the steps not yet recorded, in time order
 * @param now - the workflow's current time
 * @returns `act`, in time order, and `skip`
 */
export function selectDueSteps(
  pending: readonly ReminderStep[],
  now: number
): { act: ReminderStep[]; skip: ReminderStep[] } {
  const past = pending.filter((step) => step.at <= now)
  const latestEscalation = past.filter((step) => step.kind === 'ESCALATION').at(-1)
  const superseded = (step: ReminderStep) => step.kind === 'ESCALATION' && step !== latestEscalation
  return { act: past.filter((step) => !superseded(step)), skip: past.filter(superseded) }
}

/** A step's identity within one due date: what the workflow and the notification table deduplicate on. */
export const stepKey = (dueDate: string, step: Pick<ReminderStep, 'kind' | 'daysFromDue'>) =>
  `${dueDate}:${step.kind}:${step.daysFromDue}`

/**
 * Scales a real duration to workflow time under `timing.dayMs`.
 * @param realMs - e.g. the real time until the due day begins
 */
export const toWorkflowMs = (realMs: number, timing: ReminderTiming) => (realMs * timing.dayMs) / DAY_MS
