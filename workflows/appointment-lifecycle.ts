/**
 * @module The appointment lifecycle: the appointment workflow's body for runs started from `booking-lifecycle-v2` on
 * (workflows/appointment.ts routes to it behind `patched()`). One run per appointment, open until the appointment is final.
 *
 * - Reminders to the family at the location's `reminderOffsetsMinutes` before the start: durable timers, re-armed
 *   when the appointment moves, skipped when their time has already passed, each recorded once (dedupe key) as a
 *   care notification with `appointment.reminder_due`.
 * - Reschedule, cancel, complete and no-show arrive as Temporal updates from the API (common/appointments/appointment-workflow-contract.ts).
 *   A validator accepts or refuses the step against the workflow's state in one synchronous turn, and the handler
 *   answers with what the workflow set (the next reminder, the no-show deadline) without running an activity. The
 *   API waits for that answer holding no transaction, then writes the change in a new one after checking the
 *   appointment again (domain/appointments/appointment-transitions.ts). The database stays the source of truth: after
 *   an accepted step the workflow re-reads the appointment (on the `bookingChanged` signal sent after commit, or a
 *   minute later if that signal never comes) and follows what it finds, so a request that failed to commit, or whose
 *   step was refused after the answer, is undone here too.
 * - No-show: at the end plus a grace, an appointment nobody checked in for is marked NO_SHOW by an activity through
 *   the same state machine (`appointment.no_show`); a check-in (the session exists) prevents it.
 * - The older safety nets stay: the `bookingChanged` re-read and the re-read an hour after the end, then daily.
 *
 * The run's state is one value, moved by the pure functions of appointment-lifecycle-state.ts (unit-tested without
 * Temporal); this file is the orchestration: the handlers, the first read, the loop's wait, and around them the
 * activities, timers, search attributes and `patched()` branches, whose order the recorded histories replay
 * (test/replay-histories).
 */
import {
  ApplicationFailure,
  allHandlersFinished,
  condition,
  log,
  patched,
  proxyActivities,
  proxyLocalActivities,
  setCurrentDetails,
  setHandler,
  upsertSearchAttributes,
} from '@temporalio/workflow'
import { standardActivityOptions } from './activity-options.ts'
import { appointmentWakeAt, dueAppointmentStep } from '../common/appointments/reminder-schedule.ts'
import type { AppointmentOutcome } from './appointment.ts'
import {
  type AppointmentActivities,
  appointmentChangedSignal,
  type AppointmentPlanWithTiming,
  type AppointmentWorkflowState,
  appointmentStatusQuery,
  appointmentLifecycleQuery,
  type AppointmentWorkflowInput,
  type AppointmentLifecycleView,
  cancelAppointmentSignal,
  cancelAppointmentUpdate,
  completeAppointmentSignal,
  completeAppointmentUpdate,
  FIRST_READ_LOCAL_PATCH,
  noShowAppointmentUpdate,
  OPERATOR_STEP_REFUSED_PATCH,
  RESCHEDULE_ANSWER_AFTER_FIRST_READ_PATCH,
  rescheduleAppointmentUpdate,
  type RescheduleRequest,
  SEARCH_ATTRIBUTES_BEFORE_READ_PATCH,
} from '../common/appointments/appointment-workflow-contract.ts'
import {
  accept,
  changeSignalled,
  changeTaken,
  details,
  type FinalState,
  firstRead,
  holdRequest,
  interrupted,
  isOpen,
  type Lifecycle,
  type NextSteps,
  nextSteps,
  NOT_LOADED,
  noShowDecided,
  noShowMarked,
  operatorAsks,
  operatorStepDone,
  operatorStepRefused,
  partiesMoved,
  refusal,
  reminderSent,
  reminderStale,
  reread as rereadMove,
  reschedule,
  verifying,
  view,
} from '../common/appointments/appointment-lifecycle-state.ts'
import { searchAttributeKeys } from '../common/search-attributes-contract.ts'

const activities = proxyActivities<AppointmentActivities>(standardActivityOptions('30 seconds'))

/** The first read, run in the workflow's first task by the worker (FIRST_READ_LOCAL_PATCH); same limits and retries. */
const local = proxyLocalActivities<AppointmentActivities>({
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '1 minute' },
})

/**
 * A run's one mutable cell: its lifecycle, replaced whole by the pure moves of appointment-lifecycle-state.ts, from the
 * handlers (between the loop's awaits) and from the loop.
 */
interface Run {
  readonly input: AppointmentWorkflowInput
  lifecycle: Lifecycle
}

export async function appointmentLifecycle(input: AppointmentWorkflowInput): Promise<AppointmentOutcome> {
  const run: Run = { input, lifecycle: NOT_LOADED }
  // The handlers are registered before the first read: an update that arrives with the start (a cancel right after
  // booking) would otherwise be rejected at the end of the first activation for want of a handler. Whether the
  // appointment has started is the API's state machine's check, on the API's clock (asked first); the workflow decides
  // on its own state: a step it has already taken, or a no-show it is deciding, refuses the update.
  setHandler(cancelAppointmentUpdate, accepting(run, 'CANCELLED'), { validator: whileConfirmed(run, 'cancelled') })
  setHandler(completeAppointmentUpdate, accepting(run, 'COMPLETED'), { validator: whileConfirmed(run, 'completed') })
  setHandler(noShowAppointmentUpdate, accepting(run, 'NO_SHOW'), {
    validator: whileConfirmed(run, 'marked as a no-show'),
  })
  setHandler(rescheduleAppointmentUpdate, (request) => rescheduled(run, request), {
    validator: (_request: RescheduleRequest) => whileConfirmed(run, 'rescheduled')(),
  })
  setHandler(appointmentChangedSignal, moving(run, changeSignalled))
  setHandler(cancelAppointmentSignal, moving(run, operatorAsks('CANCELLED')))
  setHandler(completeAppointmentSignal, moving(run, operatorAsks('COMPLETED')))
  setHandler(appointmentStatusQuery, () => ({ appointmentId: input.appointmentId, state: run.lifecycle.state }))
  setHandler(appointmentLifecycleQuery, () => view(run.lifecycle, Date.now()))

  const fresh = patched(FIRST_READ_LOCAL_PATCH)
    ? await local.loadBookingPlan(input)
    : await activities.loadBookingPlan(input)
  run.lifecycle = firstRead(run.lifecycle, fresh)
  while (isOpen(run.lifecycle)) {
    const steps = nextSteps(run.lifecycle, Date.now())
    setCurrentDetails(details(run.lifecycle, steps))
    const seen = run.lifecycle.epoch
    const wakeAt = appointmentWakeAt(steps.timers, run.lifecycle.plan.endsAt, Date.now())
    const woken = await condition(() => interrupted(run.lifecycle, seen), Math.max(1, wakeAt - Date.now()))
    const asked = run.lifecycle.operatorFinal
    if (asked !== null && run.lifecycle.state === 'CONFIRMED') {
      if ((await operatorStep(run, asked)) === 'DONE') break
    } else if (run.lifecycle.changed) {
      run.lifecycle = changeTaken(run.lifecycle)
      await reread(run)
    } else if (!woken) {
      await timerStep(run, steps)
    }
  }
  await activities.settleBookingReminders(input)
  // Updates answered moments ago complete before the workflow does.
  await condition(allHandlersFinished)
  const { state, sent } = run.lifecycle
  log.info('booking closed', { appointmentId: input.appointmentId, state, remindersSent: sent.length })
  // The outcome keeps the spine's shape; the reminders sent stay readable through the lifecycleViewOf query.
  return { appointmentId: input.appointmentId, state }
}

/** A signal's handler: moves the run's lifecycle with `to`. */
const moving = (run: Run, to: (s: Lifecycle) => Lifecycle) => () => {
  run.lifecycle = to(run.lifecycle)
}

/** Takes `next` as the run's lifecycle and answers an update with what it holds now. */
function answer(run: Run, next: Lifecycle): AppointmentLifecycleView {
  run.lifecycle = next
  return view(next, Date.now())
}

/** An update's handler that accepts the step to `next` (cancel, complete, no-show). */
const accepting = (run: Run, next: AppointmentWorkflowState) => () =>
  answer(run, accept(run.lifecycle, next, Date.now()))

/** An update's validator: refuses the step (`invalid_state_transition`) unless the appointment is confirmed. */
const whileConfirmed = (run: Run, action: string) => () => {
  const reason = refusal(run.lifecycle, action)
  if (reason !== null)
    throw ApplicationFailure.create({ type: 'invalid_state_transition', message: reason, nonRetryable: true })
}

/** Operators find the workflow by the appointment's current parties. */
const followParties = (plan: AppointmentPlanWithTiming) =>
  upsertSearchAttributes([
    { key: searchAttributeKeys.ProviderId, value: plan.providerId },
    { key: searchAttributeKeys.LocationId, value: plan.locationId },
  ])

/**
 * The reschedule update's handler: accepts the new time and parties at once and answers with the reminder and the
 * no-show deadline they give. Before the first read the workflow knows no timing (the policy minute, the grace), so
 * the answer waits for that read, which the request is laid over (RESCHEDULE_ANSWER_AFTER_FIRST_READ_PATCH; runs
 * before it answered at once, without times).
 */
function rescheduled(
  run: Run,
  request: RescheduleRequest
): AppointmentLifecycleView | Promise<AppointmentLifecycleView> {
  const before = run.lifecycle
  run.lifecycle = reschedule(before, request, Date.now())
  const moved = partiesMoved(before.plan, run.lifecycle.plan)
  // Before the first read `before.plan` holds placeholders (or an earlier request's parties), so whether the parties
  // moved since the start is unknown: the attributes follow the request. Runs from before the patch compared the
  // location only there (always "moved" from the placeholder for the first request).
  const follow = before.loaded
    ? moved.provider || moved.location
    : patched(SEARCH_ATTRIBUTES_BEFORE_READ_PATCH) || moved.location
  if (follow) followParties(run.lifecycle.plan)
  if (before.loaded || !patched(RESCHEDULE_ANSWER_AFTER_FIRST_READ_PATCH)) return view(run.lifecycle, Date.now())
  run.lifecycle = holdRequest(run.lifecycle, request)
  return condition(() => run.lifecycle.loaded).then(() => view(run.lifecycle, Date.now()))
}

/** Re-reads the appointment and follows the database as {@link rereadMove} decides; the search attributes follow. */
async function reread(run: Run, force = false): Promise<void> {
  const started = run.lifecycle.epoch
  const fresh = await activities.loadBookingPlan(run.input)
  const before = run.lifecycle
  run.lifecycle = rereadMove(before, started, fresh, force)
  const moved = partiesMoved(before.plan, run.lifecycle.plan)
  if (moved.provider || moved.location) followParties(run.lifecycle.plan)
}

/**
 * An operator's signal: made through the appointment's transitions, unless the API already moved the appointment to
 * another final state.
 * @returns DONE when the lifecycle ends there, REFUSED when the state machine refused the step and it goes on
 */
async function operatorStep(run: Run, asked: FinalState): Promise<'DONE' | 'REFUSED'> {
  const found = await activities.recordAppointmentStatus({ ...run.input, status: asked })
  if (found === 'CONFIRMED' && patched(OPERATOR_STEP_REFUSED_PATCH)) {
    // Refused (completing before the start): nothing changed, the lifecycle goes on.
    log.warn('operator step refused', { appointmentId: run.input.appointmentId, step: run.lifecycle.operatorFinal })
    run.lifecycle = operatorStepRefused(run.lifecycle)
    return 'REFUSED'
  }
  run.lifecycle = operatorStepDone(run.lifecycle, found)
  return 'DONE'
}

/** What the lifecycle's timer fired for: the verification of an accepted step, a reminder, the no-show, a re-read. */
async function timerStep(run: Run, { reminder, timers }: NextSteps): Promise<void> {
  const confirmed = run.lifecycle.state === 'CONFIRMED'
  const due = dueAppointmentStep({ ...timers, verifyAt: run.lifecycle.verifyAt }, confirmed, Date.now())
  if (due === 'VERIFY') {
    run.lifecycle = verifying(run.lifecycle)
    await reread(run, true)
  } else if (due === 'REMIND' && reminder) {
    const { key, offsetMinutes } = reminder
    run.lifecycle = reminderSent(run.lifecycle, key)
    const { startsAt } = run.lifecycle.plan
    const outcome = await activities.recordBookingReminder({ ...run.input, startsAt, offsetMinutes, key })
    // The appointment moved or closed and no signal said so yet: follow the database.
    if (outcome === 'STALE') {
      run.lifecycle = reminderStale(run.lifecycle, key)
      await reread(run)
    }
  } else if (due === 'NO_SHOW') {
    // Decided in this turn: a complete or no-show update arriving while the activity runs is refused.
    run.lifecycle = noShowDecided(run.lifecycle)
    const found = await activities.markNoShow(run.input)
    // Every update was refused meanwhile, except a reschedule accepted just before: the database decided under the
    // row lock, and the workflow follows it.
    run.lifecycle = noShowMarked(run.lifecycle, found)
  } else {
    await reread(run)
  }
}
