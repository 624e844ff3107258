/**
 * @module Code kept only so that runs started before a change can finish (docs/workflows.md, "Legacy code and when
 * it goes"). Each path says from when no new run takes it and how long an older run can stay open, so the day it can
 * be deleted is known: `npm run cli -- workflows legacy` counts the runs still open, and a unit test
 * (test/unit/workflows/legacy-paths.test.ts) fails on the day a path with a fixed lifetime is past due, saying what to
 * delete. Read by that test and the CLI, never by workflow code.
 */
import { APPOINTMENT_WORKFLOW } from '../common/appointments/appointment-workflow-contract.ts'
import { WEBHOOK_DELIVERY_WORKFLOW } from '../common/webhooks/webhook-delivery-contract.ts'
import { DAY_MS } from '../common/time/calendar.ts'

export interface LegacyPath {
  /** The workflow type whose old runs need the code. */
  workflowType: string
  /** What is kept. */
  what: string
  /** The release from which no new run takes the path (a deployment upgraded later: pass its own date to the CLI). */
  cutOver: string
  /** How long a run started before the cut-over can stay open: days, or until its appointment is final. */
  lastsUpTo: number | 'its appointment'
  /** What to delete when no such run is left. */
  remove: string
}

/** Days given to deployments to upgrade after a release before a fixed-lifetime path is called past due. */
export const UPGRADE_GRACE_DAYS = 30

export const LEGACY_PATHS: LegacyPath[] = [
  {
    workflowType: APPOINTMENT_WORKFLOW,
    what: '`legacyAppointmentLoop` in workflows/appointment.ts, behind `patched(APPOINTMENT_LIFECYCLE_PATCH)`',
    cutOver: '2026-11-22',
    // A booking's run stays open until its appointment is final, and appointments may be booked any time ahead.
    lastsUpTo: 'its appointment',
    remove:
      'legacyBookingLoop and the patched() branch (keep deprecatePatch(APPOINTMENT_LIFECYCLE_PATCH) for one release), ' +
      'and the replay history test/replay-histories/bookingWorkflow-cancelled.json',
  },
  {
    workflowType: WEBHOOK_DELIVERY_WORKFLOW,
    what:
      'workflows/webhook-delivery.ts, the one-workflow-per-delivery design before the delivery pumps; its activity ' +
      'hands the delivery to the queue at the next attempt (domain/webhooks/legacy-handover.ts)',
    cutOver: '2026-11-23',
    // A run hands its delivery over at its next attempt, which comes within the retry window (WEBHOOK_RETRY_WINDOW_MS,
    // 24 h by default); a run whose worker was down longer ends at the first attempt after it is back.
    lastsUpTo: 1,
    remove:
      'workflows/webhook-delivery.ts and its export in workflows/index.ts, the local activity attemptWebhookDelivery ' +
      '(domain/webhooks/legacy-handover.ts), common/webhooks/webhook-delivery-contract.ts, and the replay history ' +
      'test/replay-histories/webhookDeliveryWorkflow-delivered.json',
  },
]

/** The first day a fixed-lifetime path can go on every deployment, or undefined when it depends on open runs. */
export function removableFrom(path: LegacyPath): Date | undefined {
  if (path.lastsUpTo === 'its appointment') return undefined
  const day = DAY_MS
  return new Date(Date.parse(`${path.cutOver}T00:00:00Z`) + (path.lastsUpTo + UPGRADE_GRACE_DAYS) * day)
}
