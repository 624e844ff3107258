/**
 * @module The facts early-intervention planning reads from a child's record, and the columns to select for them: one
 * place, so the plan the workflow keeps, the care-coordinator's briefing and a child's recommendations always judge
 * the same dates.
 */
import type { TimelineException, EiFacts } from '../../common/early-intervention/ei-plan.ts'

/** Prisma `select` of the child columns {@link eiFactsOf} reads. */
export const EI_FACT_COLUMNS = {
  dateOfBirth: true,
  eiReferralDate: true,
  eiInitialIfspDate: true,
  eiLastIfspReviewDate: true,
  eiExitDate: true,
  archivedAt: true,
  earlyInterventionPlan: { select: { timelineException: true } },
} as const

/** A child row with the columns of {@link EI_FACT_COLUMNS}. */
export interface EiChildColumns {
  dateOfBirth: Date
  eiReferralDate: Date | null
  eiInitialIfspDate: Date | null
  eiLastIfspReviewDate: Date | null
  eiExitDate: Date | null
  archivedAt: Date | null
  earlyInterventionPlan: { timelineException: TimelineException | null } | null
}

const dateOf = (value: Date | null) => (value ? value.toISOString().slice(0, 10) : null)

/** The planning facts of a child's record (dates as calendar days). */
export function eiFactsOf(child: EiChildColumns): EiFacts {
  return {
    dateOfBirth: dateOf(child.dateOfBirth)!,
    referralDate: dateOf(child.eiReferralDate),
    initialIfspDate: dateOf(child.eiInitialIfspDate),
    lastIfspReviewDate: dateOf(child.eiLastIfspReviewDate),
    exitDate: dateOf(child.eiExitDate),
    archived: child.archivedAt !== null,
    timelineException: child.earlyInterventionPlan?.timelineException ?? null,
  }
}
