/**
 * @module The early-intervention workflow's clock. The Part C clocks run on calendar days, months apart, so tests
 * shorten the day (`dayMs`, from CARE_WORKFLOW_DAY_MS) and the workflow keeps its own "plan time": it starts at the
 * real time of the workflow's start and runs `86 400 000 / dayMs` times faster than real time. With a real day
 * (production) plan time is real time. Dates are compared against the plan's today, so a test can put a referral
 * 44 days back and see the breach about one shortened day later.
 *
 * Free of Node imports: the workflow bundle imports it.
 */

export const REAL_DAY_MS = 86_400_000

export interface PlanClock {
  /** Workflow time (epoch ms) at which plan time and workflow time were equal: the workflow's first start. */
  originMs: number
  /** Length of a plan day in workflow milliseconds. */
  dayMs: number
}

/** Plan time (epoch ms) at workflow time `nowMs`. */
export const planNow = (clock: PlanClock, nowMs: number): number =>
  clock.originMs + ((nowMs - clock.originMs) * REAL_DAY_MS) / clock.dayMs

/** Workflow milliseconds from `nowMs` until plan time reaches `planMs` (0 when it already has). */
export const workflowDelayUntil = (clock: PlanClock, nowMs: number, planMs: number): number =>
  Math.max(0, ((planMs - planNow(clock, nowMs)) * clock.dayMs) / REAL_DAY_MS)
