/**
 * @module The early-intervention workflow's clock. The Part C clocks run on calendar days, months apart, so tests
 * shorten the day (`dayMs`, from CARE_WORKFLOW_DAY_MS) and the workflow keeps its own "plan time": it starts at the
 * real time of the workflow's start and runs `86 400 000 / dayMs` times faster than real time. With a real day
 * (production) plan time is real time. Dates are compared against the plan's today, so a test can put a referral
 * 44 days back and see the breach about one shortened day later.
 *
 * Free of Node imports: the workflow bundle imports it.
 */
import { DAY_MS } from '../time/calendar.ts'

export interface PlanClock {
  /** Workflow time (epoch ms) at which plan time and workflow time were equal: the workflow's first start. */
  originMs: number
  /** Length of a plan day in workflow milliseconds. */
  dayMs: number
}

/** Plan time (epoch ms) at workflow time `nowMs`. */
export const planNow = (clock: PlanClock, nowMs: number): number =>
  clock.originMs + ((nowMs - clock.originMs) * DAY_MS) / clock.dayMs

/** Workflow milliseconds from `nowMs` until plan time reaches `planMs` (0 when it already has). */
export const workflowDelayUntil = (clock: PlanClock, nowMs: number, planMs: number): number =>
  Math.max(0, ((planMs - planNow(clock, nowMs)) * clock.dayMs) / DAY_MS)

/**
 * How long the workflow sleeps before looking again, or null when it records the next notice now. It sleeps until a
 * notice not yet due is due, and a plan day when there is none; a notice the last recording found stale (the plan
 * moved between two reads) is not asked for again at once but after a change or the daily reload. Never longer than
 * one plan day: the periodic reload.
 * @param delayMs - workflow ms until the next notice is due ({@link workflowDelayUntil}); +Infinity when there is none
 * @param stale - the next notice is the one the last recording answered STALE
 */
export function noticeWaitMs(delayMs: number, stale: boolean, dayMs: number): number | null {
  if (delayMs > 0 || stale) return Math.ceil(Math.min(delayMs || dayMs, dayMs))
  return null
}
