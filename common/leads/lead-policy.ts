/**
 * @module How a lead is worked: how many providers are kept per discipline, how far ahead slots are searched, how
 * often and how many times an unanswered offer is followed up, and when it is given up (LOST, NO_RESPONSE). Pure and
 * free of Node imports: the workflow computes its timers with it, and the API shows the same numbers.
 */
import { DAY_MS } from '../time/calendar.ts'

export interface LeadPolicy {
  /** Providers kept per needed discipline, best first. */
  matchesPerDiscipline: number
  /** Days of slots searched from the moment of matching. */
  searchDays: number
  /** Days between follow-ups of an unanswered offer (the first comes this long after the offer). */
  followUpEveryDays: number
  /** Most follow-ups per offer. */
  maxFollowUps: number
  /** Days after the offer at which an unanswered lead is closed LOST (NO_RESPONSE). */
  respondWithinDays: number
  /** Attempts at matching a qualified lead (one per follow-up interval) before closing it LOST (NO_MATCH). */
  matchAttempts: number
}

export const DEFAULT_LEAD_POLICY: LeadPolicy = {
  matchesPerDiscipline: 3,
  searchDays: 14,
  followUpEveryDays: 2,
  maxFollowUps: 3,
  respondWithinDays: 7,
  matchAttempts: 3,
}

/** The policy with overrides applied. */
export const leadPolicyOf = (overrides?: Partial<LeadPolicy>): LeadPolicy => ({ ...DEFAULT_LEAD_POLICY, ...overrides })

/** The timers of one offer, epoch ms. */
export interface OfferTimers {
  /** When each follow-up is due, in order; only those before `respondBy` (a follow-up at the close is pointless). */
  followUpsAt: number[]
  respondBy: number
}

/**
 * The follow-up and close instants of an offer made at `offeredAt`.
 * @param dayMs - length of a day (tests shorten it)
 */
export function offerTimers(offeredAt: number, policy: LeadPolicy, dayMs: number = DAY_MS): OfferTimers {
  const respondBy = offeredAt + policy.respondWithinDays * dayMs
  const followUpsAt: number[] = []
  for (let n = 1; n <= policy.maxFollowUps; n++) {
    const at = offeredAt + n * policy.followUpEveryDays * dayMs
    if (at < respondBy) followUpsAt.push(at)
  }
  return { followUpsAt, respondBy }
}

/**
 * What an offer waits for next, given how many follow-ups went out.
 * @returns the next follow-up (its number, from 1, and instant) or null when none is left, and the close instant
 */
export function nextOfferStep(
  timers: OfferTimers,
  followUpsSent: number
): { followUp: { n: number; at: number } | null; respondBy: number } {
  const at = timers.followUpsAt[followUpsSent]
  return { followUp: at === undefined ? null : { n: followUpsSent + 1, at }, respondBy: timers.respondBy }
}

/** An offer's step as {@link nextOfferStep} reports it. */
export type OfferStep = ReturnType<typeof nextOfferStep>

/** When an unanswered offer next needs the workflow: its next follow-up, or the close of its response window. */
export const offerWakeAt = (step: OfferStep): number =>
  Math.min(step.followUp?.at ?? Number.POSITIVE_INFINITY, step.respondBy)

/**
 * What an unanswered offer's timer means at `now`: the response window has closed (LOST, NO_RESPONSE; it wins over
 * a follow-up due at the same instant), a follow-up is due, or nothing yet.
 */
export function offerAction(
  step: OfferStep,
  now: number
): { kind: 'CLOSE' } | { kind: 'FOLLOW_UP'; followUp: { n: number; at: number } } | { kind: 'WAIT' } {
  if (now >= step.respondBy) return { kind: 'CLOSE' }
  if (!step.followUp || now < step.followUp.at) return { kind: 'WAIT' }
  return { kind: 'FOLLOW_UP', followUp: step.followUp }
}
