/**
 * @module The appointment workflow's contract with the API: its id and input, the signals and queries of every run, and
 * the lifecycle's updates (runs from `booking-lifecycle-v2` on). Reschedule, cancel, complete and no-show are Temporal
 * updates: the workflow accepts or refuses the step against its own state in one synchronous turn (its validator; a
 * refusal is `invalid_state_transition`) and answers with what it set — the next reminder, the no-show deadline — so
 * the API returns the workflow's decision rather than a guess. The handlers run no activity before answering, so an
 * answer never waits on the database. Payloads carry ids and times only.
 */
import { defineQuery, defineSignal, defineUpdate } from '@temporalio/workflow'
import type { AppointmentStatus } from './appointment-status.ts'

/** The appointment workflow's registered type (the worker's export name): never renamed, running workflows carry it. */
export const APPOINTMENT_WORKFLOW = 'bookingWorkflow'
/** `WorkflowKind` of every appointment workflow, and the `workflowKind` of the reminders it records. */
export const APPOINTMENT_WORKFLOW_KIND = 'booking'

/** The workflow id of an appointment's appointment workflow: derived from the appointment id, so starts are idempotent. */
export const appointmentWorkflowId = (appointmentId: string) => `booking-${appointmentId}`

export interface AppointmentWorkflowInput {
  tenantId: string
  appointmentId: string
}

/** The appointment's status as the appointment workflow holds it: the appointment's own list, not a copy of it. */
export type AppointmentWorkflowState = AppointmentStatus

export interface AppointmentWorkflowStatus {
  appointmentId: string
  state: AppointmentWorkflowState
}

export const cancelAppointmentSignal = defineSignal<[{ reason?: string }]>('cancelBooking')
export const completeAppointmentSignal = defineSignal<[]>('completeBooking')
/**
 * The appointment changed through the API (rescheduled, cancelled, completed, no-show): the workflow reloads it from
 * the database, which is the source of truth, so the signal carries no data and a duplicate is harmless.
 */
export const appointmentChangedSignal = defineSignal<[]>('bookingChanged')
export const appointmentStatusQuery = defineQuery<AppointmentWorkflowStatus>('bookingStatus')

/** The `patched()` id of the lifecycle (reminders, updates, no-show); runs started before it replay the old loop. */
export const APPOINTMENT_LIFECYCLE_PATCH = 'booking-lifecycle-v2'

/**
 * The `patched()` id of an operator's refused step: since operators' signals go through the appointment's transitions,
 * the state machine may refuse one (completing before the start), and the workflow then goes on rather than closing
 * over an appointment that is still CONFIRMED. Runs before it never got that answer (the old activity wrote any final
 * status), so the marker appears only where the new branch is taken.
 */
export const OPERATOR_STEP_REFUSED_PATCH = 'booking-operator-step-refused'

/**
 * The `patched()` id of the search attributes following a reschedule accepted before the workflow's first read: the
 * lifecycle then cannot know whether the parties moved, so the attributes follow the request. Runs before it compared
 * only the location then (`loaded && providerMoved || locationMoved`: an operator-precedence slip), so a second
 * reschedule before the first read that kept the location but changed the provider left the old ProviderId.
 */
export const SEARCH_ATTRIBUTES_BEFORE_READ_PATCH = 'booking-search-attributes-before-first-read'

/**
 * The `patched()` id of the lifecycle's first read as a local activity: the worker reads the appointment within the
 * workflow's first task, so a booking costs the Temporal server one workflow task and no activity task before the
 * workflow waits on its timer, where it cost two workflow tasks and an activity task's schedule, dispatch, start and
 * completion (issue 22: most of a booking's CPU was the Temporal server's). Runs before it replay the activity.
 */
export const FIRST_READ_LOCAL_PATCH = 'booking-first-read-local'

/**
 * The `patched()` id of the answer to a reschedule accepted before the workflow's first read (a workflow still in its
 * start delay, run at once by the update): the answer waits for that read, which the request is laid over, and so
 * carries the reminder and the no-show deadline the workflow will keep. Runs before it answered at once, with no
 * times (`nextReminderAt: null`) although the appointment's own `nextReminderAt` had them.
 */
export const RESCHEDULE_ANSWER_AFTER_FIRST_READ_PATCH = 'booking-reschedule-answer-after-first-read'

/** What the workflow tells the API and its users about one appointment. Instants are UTC ISO 8601. */
export interface AppointmentLifecycleView {
  /** The workflow's state: the appointment's status as the workflow holds it. */
  state: AppointmentWorkflowState
  /** The next reminder to the family, or null when none is left (past, all sent, or the appointment is final). */
  nextReminderAt: string | null
  /** Reminders recorded so far (care notifications of kind `appointment_reminder`). */
  remindersSent: number
  /** When the appointment becomes a no-show without a check-in; null once final or checked in. */
  noShowAt: string | null
  /** Whether a check-in was seen (the session exists); known at the no-show deadline or after a re-read. */
  checkedIn: boolean
}

/** A new time (and provider's location policy) the API has checked for bookability. */
export interface RescheduleRequest {
  startsAt: string
  endsAt: string
  providerId: string
  locationId: string
  /** The reminder offsets of the appointment's location after the change. */
  reminderOffsetsMinutes: number[]
}

export const rescheduleAppointmentUpdate = defineUpdate<AppointmentLifecycleView, [RescheduleRequest]>(
  'rescheduleBooking'
)
export const cancelAppointmentUpdate = defineUpdate<AppointmentLifecycleView, []>('cancelBookingUpdate')
export const completeAppointmentUpdate = defineUpdate<AppointmentLifecycleView, []>('completeBookingUpdate')
export const noShowAppointmentUpdate = defineUpdate<AppointmentLifecycleView, []>('noShowBooking')
/** The lifecycle as the workflow holds it now (GET /v1/appointments/{id}/workflow). */
export const appointmentLifecycleQuery = defineQuery<AppointmentLifecycleView>('bookingView')

/** The appointment as the lifecycle plans with it: status, times, parties (ids), the location's reminder policy, check-in. */
export interface AppointmentPlan {
  status: AppointmentWorkflowState
  startsAt: string
  endsAt: string
  childId: string
  providerId: string
  locationId: string
  reminderOffsetsMinutes: number[]
  /** Whether the appointment's session exists (opened at check-in, or at completion). */
  checkedIn: boolean
}

/**
 * The plan the lifecycle works from: the appointment as its activity reads it, with the worker's timing (recorded in
 * history, so replays see the same).
 */
export interface AppointmentPlanWithTiming extends AppointmentPlan {
  /** How long a policy minute lasts (real ms; tests shorten the policy day). */
  minuteMs: number
  /** How long after the end a no-show is decided (real ms). */
  noShowGraceMs: number
}

/** One reminder to the family, recorded once per `key`; stale when the appointment no longer starts at `startsAt`. */
export interface AppointmentReminderRequest {
  /** The start the reminder is about (ISO). */
  startsAt: string
  offsetMinutes: number
  key: string
}

/** The final step an operator's old-style signal asks for. */
export interface RecordStatusInput extends AppointmentWorkflowInput {
  status: Exclude<AppointmentWorkflowState, 'CONFIRMED'>
}

/**
 * The appointment activities (activities/appointment-activities.ts) as the appointment workflow and its lifecycle proxy them. The
 * factory declares that it returns this interface, so the compiler checks the two agree. Names, arguments and results
 * are in recorded histories: changing one breaks the replay of runs in flight.
 */
export interface AppointmentActivities {
  /** The lifecycle's view of the appointment and the timing; a missing appointment is a permanent failure. */
  loadBookingPlan: (input: AppointmentWorkflowInput) => Promise<AppointmentPlanWithTiming>
  /** Records one reminder to the family, once per key; STALE when the appointment changed meanwhile. */
  recordBookingReminder: (
    input: AppointmentWorkflowInput & AppointmentReminderRequest
  ) => Promise<'RECORDED' | 'DUPLICATE' | 'STALE'>
  /** Marks the appointment NO_SHOW unless someone checked in or it is already final; answers what it found. */
  markNoShow: (input: AppointmentWorkflowInput) => Promise<{ status: AppointmentWorkflowState; checkedIn: boolean }>
  /** Resolves a closed appointment's open reminders; answers how many. */
  settleBookingReminders: (input: AppointmentWorkflowInput) => Promise<number>
  /** The appointment's status, schedule and parties (ids only), as runs from before the lifecycle read it. */
  loadBooking: (input: AppointmentWorkflowInput) => Promise<{
    status: AppointmentWorkflowState
    startsAt: string
    endsAt: string
    providerId: string
    locationId: string
  }>
  /** Makes an operator's final step through the appointment's transitions; answers the status it has afterwards. */
  recordAppointmentStatus: (input: RecordStatusInput) => Promise<AppointmentWorkflowState>
}
