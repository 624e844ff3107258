/**
 * @module Activities of the appointment follow-up workflow: thin wrappers over
 * domain/appointments/appointment-lifecycle-store.ts in a unit of work of the workflow's tenant. Recording is idempotent
 * per dedupe key, so a retry after a worker crash notifies nobody twice.
 */
import { ApplicationFailure } from '@temporalio/common'
import type { Db } from '../infra/db.ts'
import { runInUnitOfWork } from '../infra/unit-of-work.ts'
import {
  loadFollowUpPlan,
  recordFamilyFollowUp,
  recordNoteNudge,
} from '../domain/appointments/appointment-lifecycle-store.ts'
import { minuteMsOf } from '../common/appointments/reminder-schedule.ts'
import type {
  AppointmentFollowUpActivities,
  AppointmentFollowUpInput,
} from '../common/appointments/appointment-follow-up-contract.ts'
import type { AppointmentTiming } from './appointment-activities.ts'
import { systemClock, type Clock } from '../infra/clock.ts'
import { DAY_MS } from '../common/time/calendar.ts'

export interface AppointmentFollowUpActivityDeps {
  db: Db
  appointmentTiming?: Partial<AppointmentTiming>
  /** When the family's follow-up is recorded. */
  now?: Clock
}

/** Creates the follow-up activities: the interface the follow-up workflow proxies (its contract). */
export function createAppointmentFollowUpActivities({
  db,
  appointmentTiming,
  now = systemClock,
}: AppointmentFollowUpActivityDeps): AppointmentFollowUpActivities {
  const minuteMs = minuteMsOf(appointmentTiming?.dayMs ?? DAY_MS)

  async function plan(uow: Parameters<typeof loadFollowUpPlan>[0], appointmentId: string) {
    const found = await loadFollowUpPlan(uow, appointmentId)
    if (!found) {
      throw ApplicationFailure.create({
        type: 'AppointmentNotFound',
        message: `Appointment ${appointmentId} not found`,
        nonRetryable: true,
      })
    }
    return found
  }

  return {
    /** The completed appointment, its note deadline policy and whether its note is signed, with the policy minute. */
    async loadFollowUp({ tenantId, appointmentId }: AppointmentFollowUpInput) {
      const found = await runInUnitOfWork(db, tenantId, (uow) => plan(uow, appointmentId))
      return { ...found, minuteMs }
    },

    /** SIGNED when the note is signed by now; otherwise records nudge number `nudge` (once) and answers NUDGED. */
    async nudgeProviderIfUnsigned(
      input: AppointmentFollowUpInput & { nudge: number; dueAt: string }
    ): Promise<'SIGNED' | 'NUDGED'> {
      return runInUnitOfWork(db, input.tenantId, async (uow) => {
        // Stamped before the check that makes it legitimate: a signature committed after this moment can have been
        // missed by the check, one committed before cannot. Stamped at the insert, a nudge whose check preceded a
        // signature could carry a later time than the signature's answer. Wall time, as every row's createdAt.
        const checkedAt = new Date()
        const found = await plan(uow, input.appointmentId)
        if (found.noteSigned) return 'SIGNED'
        await recordNoteNudge(uow, {
          ...found,
          checkedAt,
          appointmentId: input.appointmentId,
          nudge: input.nudge,
          dueAt: input.dueAt,
        })
        return 'NUDGED'
      })
    },

    /** Resolves the provider's nudges and records the family's follow-up (once). */
    async sendFamilyFollowUp({ tenantId, appointmentId }: AppointmentFollowUpInput) {
      return runInUnitOfWork(db, tenantId, async (uow) => {
        const found = await plan(uow, appointmentId)
        return recordFamilyFollowUp(uow, { ...found, appointmentId }, now())
      })
    },
  }
}
