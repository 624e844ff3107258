/**
 * @module A child's early-intervention enrolment (IDEA Part C; docs/domain.md, 'Early intervention clocks'): the dates the Part C clocks run from.
 * Stored in the `children.ei_*` columns so the early-intervention check-in workflow can query them directly:
 *
 * | API field                       | column                      | what it means                                       |
 * |---------------------------------|-----------------------------|-----------------------------------------------------|
 * | `referralDate`                  | `ei_referral_date`          | the referral was received: starts the 45-day clock to the initial IFSP (§303.310) |
 * | `referralSource`                | `ei_referral_source`        | the primary referral source (§303.303(c))           |
 * | `consentDate`                   | `ei_consent_date`           | written parental consent for services (§303.420)    |
 * | `initialIfspDate`               | `ei_initial_ifsp_date`      | the initial IFSP meeting was held                   |
 * | `lastIfspReviewDate`            | `ei_last_ifsp_review_date`  | the latest periodic review or annual IFSP: the 6-month review and annual meeting are due from here (§303.342) |
 * | `exitDate`                      | `ei_exit_date`              | the child left Part C services (transition at 3, or earlier) |
 * | `serviceCoordinator`            | `ei_service_coordinator`    | the family's one service coordinator (JSON: name, organization, email, phone) |
 *
 * A child is enrolled exactly when `ei_referral_date` is set; every other `ei_*` column is null when it is not.
 */
import { z } from '@hono/zod-openapi'
import { Prisma } from '../../generated/prisma/client.ts'
import { CalendarDate, PhoneNumber } from '../clients/record-fields.ts'

/** Primary referral sources named by 34 CFR §303.303(c). */
export const REFERRAL_SOURCES = [
  'HOSPITAL',
  'PHYSICIAN',
  'PARENT',
  'CHILD_CARE',
  'EARLY_LEARNING_PROGRAM',
  'LOCAL_EDUCATION_AGENCY',
  'PUBLIC_HEALTH',
  'SOCIAL_SERVICES',
  'CHILD_WELFARE',
  'HOMELESS_SHELTER',
  'OTHER',
] as const

export const ServiceCoordinator = z
  .strictObject({
    name: z.string().trim().min(1).max(200),
    organization: z.string().trim().min(1).max(200).optional(),
    email: z.email().max(254).optional(),
    phone: PhoneNumber.optional(),
  })
  .openapi('ServiceCoordinator')

export type ServiceCoordinatorValue = z.output<typeof ServiceCoordinator>

const order = (
  ctx: z.RefinementCtx,
  later: string | undefined,
  earlier: string | undefined,
  path: string,
  code: string,
  message: string
) => {
  if (later !== undefined && earlier !== undefined && later < earlier) {
    ctx.addIssue({ code: 'custom', path: [path], message, params: { code } })
  }
}

export const EarlyIntervention = z
  .strictObject({
    referralDate: CalendarDate.openapi({
      description: 'When the referral was received; starts the 45-day clock to the initial IFSP',
    }),
    referralSource: z.enum(REFERRAL_SOURCES).optional(),
    consentDate: CalendarDate.optional().openapi({
      description: 'Written parental consent for early-intervention services',
    }),
    initialIfspDate: CalendarDate.optional().openapi({ description: 'The initial IFSP meeting' }),
    lastIfspReviewDate: CalendarDate.optional().openapi({
      description: 'The latest IFSP periodic review or annual meeting; the next review is due 6 months later',
    }),
    exitDate: CalendarDate.optional().openapi({ description: 'The child left Part C services' }),
    serviceCoordinator: ServiceCoordinator.optional(),
  })
  .superRefine((ei, ctx) => {
    order(
      ctx,
      ei.initialIfspDate,
      ei.referralDate,
      'initialIfspDate',
      'before_referral',
      'The initial IFSP cannot precede the referral.'
    )
    order(
      ctx,
      ei.consentDate,
      ei.referralDate,
      'consentDate',
      'before_referral',
      'Consent cannot precede the referral.'
    )
    order(ctx, ei.exitDate, ei.referralDate, 'exitDate', 'before_referral', 'The exit cannot precede the referral.')
    if (ei.lastIfspReviewDate !== undefined && ei.initialIfspDate === undefined) {
      ctx.addIssue({
        code: 'custom',
        path: ['lastIfspReviewDate'],
        message: 'A review needs the initial IFSP date.',
        params: { code: 'requires_initial_ifsp' },
      })
    }
    order(
      ctx,
      ei.lastIfspReviewDate,
      ei.initialIfspDate,
      'lastIfspReviewDate',
      'before_initial_ifsp',
      'The review cannot precede the initial IFSP.'
    )
  })
  .openapi('EarlyIntervention', {
    description:
      'Early-intervention (IDEA Part C) enrolment; null when the child is not enrolled. See docs/care-records.md.',
  })

export type EarlyInterventionValue = z.output<typeof EarlyIntervention>

/** The `ei_*` columns of a child. */
export interface EarlyInterventionColumns {
  eiReferralDate: Date | null
  eiReferralSource: string | null
  eiConsentDate: Date | null
  eiInitialIfspDate: Date | null
  eiLastIfspReviewDate: Date | null
  eiExitDate: Date | null
  eiServiceCoordinator: Prisma.JsonValue | null
}

const toDate = (value: string | undefined) => (value === undefined ? null : new Date(`${value}T00:00:00.000Z`))
const fromDate = (value: Date | null) => (value === null ? undefined : value.toISOString().slice(0, 10))

/** The columns to write for an enrolment, or all null for none. */
export function earlyInterventionColumns(ei: EarlyInterventionValue | undefined) {
  return {
    eiReferralDate: toDate(ei?.referralDate),
    eiReferralSource: ei?.referralSource ?? null,
    eiConsentDate: toDate(ei?.consentDate),
    eiInitialIfspDate: toDate(ei?.initialIfspDate),
    eiLastIfspReviewDate: toDate(ei?.lastIfspReviewDate),
    eiExitDate: toDate(ei?.exitDate),
    eiServiceCoordinator: ei?.serviceCoordinator ?? Prisma.DbNull,
  }
}

/** The enrolment a child's columns hold, or undefined when the child is not enrolled. */
export function earlyInterventionOf(row: EarlyInterventionColumns): EarlyInterventionValue | undefined {
  if (row.eiReferralDate === null) return undefined
  const value = {
    referralDate: fromDate(row.eiReferralDate)!,
    referralSource: row.eiReferralSource ?? undefined,
    consentDate: fromDate(row.eiConsentDate),
    initialIfspDate: fromDate(row.eiInitialIfspDate),
    lastIfspReviewDate: fromDate(row.eiLastIfspReviewDate),
    exitDate: fromDate(row.eiExitDate),
    serviceCoordinator: (row.eiServiceCoordinator ?? undefined) as ServiceCoordinatorValue | undefined,
  }
  // Absent members stay absent, so the value is also a clean merge-patch target.
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as EarlyInterventionValue
}
