/**
 * @module The numbers of the IDEA Part C clocks (34 CFR Part 303; docs/domain.md, 'Early intervention clocks') and of the reminders the
 * early-intervention check-in workflow raises around them. Federal floors by default; a state with stricter rules
 * (or a tenant's own practice) overrides them through the workflow input.
 *
 * Free of Node imports: the workflow bundle imports it.
 */

export interface EiPolicy {
  /** Referral to initial IFSP meeting, in days (§303.310(a)). A meeting on the last day is within the limit. */
  initialIfspDays: number
  /** Days after the referral on which a reminder of the initial IFSP goes out (docs/domain.md, 'Early-intervention reminders'). */
  initialIfspReminderDays: number[]
  /** A referral this many days or fewer before the third birthday needs no Part C evaluation (§303.209(b)(1)(iii)). */
  lateReferralDays: number
  /** Months between IFSP periodic reviews (§303.342(b)). */
  reviewMonths: number
  /** Months between annual IFSP meetings (§303.342(c)). */
  annualMonths: number
  /**
   * An IFSP meeting held this many months or fewer before an anniversary of the initial IFSP counts as that year's
   * annual meeting ("holding the annual early satisfies both clocks"; the record keeps only the latest meeting date).
   */
  annualHeldEarlyMonths: number
  /** Days before a periodic review or annual meeting on which a reminder goes out (docs/domain.md, 'Early-intervention reminders'). */
  meetingReminderDays: number[]
  /** The transition window opens this many months before the third birthday (§303.209(d): at most 9 months). */
  transitionWindowMonths: number
  /** Transition plan, LEA notification and conference are due this many days before the third birthday (≥ 90). */
  transitionDueDays: number
  /** Days before the transition due date on which a reminder goes out. */
  transitionReminderDays: number[]
  /** Months between two family check-ins of the service coordinator (state rules, e.g. Illinois: monthly). */
  checkInEveryMonths: number
  /**
   * How many days late a reminder may still be sent (a worker outage, an enrolment entered late). Older reminders
   * are dropped as noise; notices of a missed deadline and the latest check-in are always sent.
   */
  catchUpDays: number
}

export const DEFAULT_EI_POLICY: EiPolicy = {
  initialIfspDays: 45,
  initialIfspReminderDays: [30, 40, 44],
  lateReferralDays: 45,
  reviewMonths: 6,
  annualMonths: 12,
  annualHeldEarlyMonths: 3,
  meetingReminderDays: [30, 14, 7],
  transitionWindowMonths: 9,
  transitionDueDays: 90,
  transitionReminderDays: [30, 14, 7],
  checkInEveryMonths: 1,
  catchUpDays: 3,
}

/** The policy with overrides applied. */
export const eiPolicyOf = (overrides: Partial<EiPolicy> | undefined): EiPolicy => ({
  ...DEFAULT_EI_POLICY,
  ...overrides,
})
