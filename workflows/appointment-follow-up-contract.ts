/**
 * @module Message contracts of the appointment follow-up workflow, shared by the API and the workflow. Payloads
 * carry ids only.
 */
import { defineQuery, defineSignal } from '@temporalio/workflow'

export const APPOINTMENT_FOLLOW_UP_WORKFLOW_TYPE = 'appointmentFollowUpWorkflow'
export const APPOINTMENT_FOLLOW_UP_KIND = 'appointment-follow-up'

/** One follow-up per completed appointment: derived from its id, so the start (through the outbox) is idempotent. */
export const appointmentFollowUpWorkflowId = (appointmentId: string) => `${APPOINTMENT_FOLLOW_UP_KIND}-${appointmentId}`

export interface AppointmentFollowUpInput {
  tenantId: string
  appointmentId: string
}

/**
 * WAITING_FOR_NOTE until the note is due, NUDGING while it is overdue, FOLLOWED_UP once the family's follow-up went
 * out (the end), UNSIGNED when the note was still unsigned long after the last nudge (the end; the nudges stay open).
 */
export type FollowUpStatus = 'WAITING_FOR_NOTE' | 'NUDGING' | 'FOLLOWED_UP' | 'UNSIGNED' | 'NOT_COMPLETED'

export interface FollowUpView {
  status: FollowUpStatus
  /** When the session's note is due (completion + the location's `noteDueHours`), UTC. */
  noteDueAt: string | null
  nudgesSent: number
  nextNudgeAt: string | null
}

/** The session's SOAP note was signed (sent by the notes API after commit); the workflow re-reads, so no data. */
export const noteSignedSignal = defineSignal<[]>('noteSigned')
export const followUpViewQuery = defineQuery<FollowUpView>('followUpView')
