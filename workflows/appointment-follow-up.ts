/**
 * @module The appointment follow-up workflow: one run per completed appointment (started through the outbox when it
 * is completed). It waits until the session's SOAP note is due (completion + the location's `noteDueHours`); if the
 * note is still unsigned then, it nudges the provider (a care notification, once per nudge) and again daily, at most
 * MAX_NOTE_NUDGES times. When the note is signed (the notes API signals `noteSigned` after commit; every timer also
 * re-reads, in case that signal was lost) the family's follow-up is recorded and the workflow ends. A note never
 * signed ends the run some days after the last nudge, with the nudges left open for the provider.
 */
import { condition, log, proxyActivities, setCurrentDetails, setHandler } from '@temporalio/workflow'
import { standardActivityOptions } from './activity-options.ts'
import { followUpGiveUpAt, nextNudgeAt } from '../common/appointments/reminder-schedule.ts'
import {
  followUpViewQuery,
  noteSignedSignal,
  type AppointmentFollowUpActivities,
  type AppointmentFollowUpInput,
  type FollowUpStatus,
  type FollowUpView,
} from '../common/appointments/appointment-follow-up-contract.ts'

const activities = proxyActivities<AppointmentFollowUpActivities>(standardActivityOptions('30 seconds'))

export interface AppointmentFollowUpResult {
  status: FollowUpStatus
  nudgesSent: number
}

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString())

export async function appointmentFollowUpWorkflow(input: AppointmentFollowUpInput): Promise<AppointmentFollowUpResult> {
  const plan = await activities.loadFollowUp(input)
  let status: FollowUpStatus = plan.status === 'COMPLETED' && plan.completedAt ? 'WAITING_FOR_NOTE' : 'NOT_COMPLETED'
  const completedAt = plan.completedAt ? Date.parse(plan.completedAt) : 0
  const dueAt = completedAt + plan.noteDueHours * 60 * plan.minuteMs
  let signed = plan.noteSigned
  let signalled = false
  let nudgesSent = 0

  const upcoming = () =>
    signed || status === 'NOT_COMPLETED' ? null : nextNudgeAt(completedAt, plan.noteDueHours, plan.minuteMs, nudgesSent)
  setHandler(noteSignedSignal, () => {
    signalled = true
  })
  setHandler(followUpViewQuery, (): FollowUpView => ({
    status,
    noteDueAt: status === 'NOT_COMPLETED' ? null : iso(dueAt),
    nudgesSent,
    nextNudgeAt: iso(upcoming()),
  }))
  if (status === 'NOT_COMPLETED') return { status, nudgesSent }

  while (!signed) {
    const nudgeAt = upcoming()
    const until = nudgeAt ?? followUpGiveUpAt(dueAt, plan.minuteMs)
    setCurrentDetails(
      `Status: ${status} · note due: ${iso(dueAt)} · nudges sent: ${nudgesSent} · next nudge: ${iso(nudgeAt) ?? 'none'}`
    )
    const woken = await condition(() => signalled, Math.max(1, until - Date.now()))
    if (woken) {
      signalled = false
      signed = (await activities.loadFollowUp(input)).noteSigned
      continue
    }
    if (nudgeAt === null) {
      // Long past the last nudge and still unsigned: the nudges stay open; nothing more is sent.
      signed = (await activities.loadFollowUp(input)).noteSigned
      if (!signed) {
        status = 'UNSIGNED'
        break
      }
      continue
    }
    // Checks the note and records the nudge in one transaction: never a nudge about a note signed a moment ago.
    const outcome = await activities.nudgeProviderIfUnsigned({ ...input, nudge: nudgesSent + 1, dueAt: iso(dueAt)! })
    if (outcome === 'SIGNED') signed = true
    else {
      nudgesSent++
      status = 'NUDGING'
    }
  }
  if (signed) {
    await activities.sendFamilyFollowUp(input)
    status = 'FOLLOWED_UP'
  }
  log.info('appointment follow-up closed', { appointmentId: input.appointmentId, status, nudgesSent })
  return { status, nudgesSent }
}
