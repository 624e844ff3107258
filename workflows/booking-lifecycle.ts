/**
 * @module The booking lifecycle: the booking workflow's body for runs started from `booking-lifecycle-v2` on
 * (workflows/booking.ts routes to it behind `patched()`). One run per appointment, open until the appointment is final.
 *
 * - Reminders to the family at the location's `reminderOffsetsMinutes` before the start: durable timers, re-armed
 *   when the appointment moves, skipped when their time has already passed, each recorded once (dedupe key) as a
 *   care notification with `appointment.reminder_due`.
 * - Reschedule, cancel, complete and no-show arrive as Temporal updates from the API (workflows/booking-contract.ts).
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
import type { BookingPlanWithTiming, createBookingActivities } from '../activities/booking-activities.ts'
import { standardActivityOptions } from './activity-options.ts'
import {
  bookingWakeAt,
  dueBookingStep,
  nextReminderAt,
  noShowDeadline,
  pendingReminders,
} from '../domain/appointments/reminder-schedule.ts'
import type { BookingOutcome } from './booking.ts'
import {
  bookingChangedSignal,
  type BookingState,
  bookingStatusQuery,
  bookingViewQuery,
  type BookingWorkflowInput,
  type BookingWorkflowView,
  cancelBookingSignal,
  cancelBookingUpdate,
  completeBookingSignal,
  completeBookingUpdate,
  FIRST_READ_LOCAL_PATCH,
  followsDatabase,
  noShowBookingUpdate,
  OPERATOR_STEP_REFUSED_PATCH,
  rescheduleBookingUpdate,
  type RescheduleRequest,
  SEARCH_ATTRIBUTES_BEFORE_READ_PATCH,
} from './booking-contract.ts'
import { searchAttributeKeys } from './search-attributes.ts'

const activities = proxyActivities<ReturnType<typeof createBookingActivities>>(standardActivityOptions('30 seconds'))

/** The first read, run in the workflow's first task by the worker (FIRST_READ_LOCAL_PATCH); same limits and retries. */
const local = proxyLocalActivities<ReturnType<typeof createBookingActivities>>({
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '1 minute' },
})

/** How long after an accepted step the workflow re-reads the appointment if the after-commit signal never came. */
const VERIFY_AFTER_UPDATE_MS = 60_000

const refuse = (message: string): never => {
  throw ApplicationFailure.create({ type: 'invalid_state_transition', message, nonRetryable: true })
}

const iso = (ms: number | null | undefined) => (ms === null || ms === undefined ? null : new Date(ms).toISOString())

/** Until the first read: no times (no reminder, no deadline), and the state the API saw when it booked. */
const NOT_LOADED: BookingPlanWithTiming = {
  status: 'CONFIRMED',
  startsAt: '',
  endsAt: '',
  childId: '',
  providerId: '',
  locationId: '',
  reminderOffsetsMinutes: [],
  checkedIn: false,
  minuteMs: 60_000,
  noShowGraceMs: 0,
}

export async function bookingLifecycle(input: BookingWorkflowInput): Promise<BookingOutcome> {
  // The handlers are registered before the first read: an update that arrives with the start (a cancel right after
  // booking) would otherwise be rejected at the end of the first activation for want of a handler.
  let plan = NOT_LOADED
  let loaded = false
  // Widened on purpose (`as`) here and below: the handlers change these between awaits, which TypeScript's narrowing
  // cannot see.
  let state = 'CONFIRMED' as BookingState
  /** Keys of the reminders recorded (or found recorded) by this run. */
  const sent: string[] = []
  /** A step accepted by an update and not yet seen in the database. */
  let awaitingCommit = false as boolean
  /** A re-read asked for (the API's after-commit signal). */
  let changed = false as boolean
  /** When to re-read if an accepted step's signal never comes. */
  let verifyAt = null as number | null
  /** Bumped by every accepted update: a re-read that started before it is stale. */
  let epoch = 0
  /** A final state asked for by an operator's old-style signal; the workflow writes it itself. */
  let operatorFinal = null as Exclude<BookingState, 'CONFIRMED'> | null

  const schedule = () => ({
    startsAt: plan.startsAt,
    offsetsMinutes: plan.reminderOffsetsMinutes,
    minuteMs: plan.minuteMs,
    now: Date.now(),
    sent,
  })
  const pending = () => (state === 'CONFIRMED' ? pendingReminders(schedule()) : [])
  const noShowAt = () =>
    state === 'CONFIRMED' && !plan.checkedIn ? noShowDeadline(plan.endsAt, plan.noShowGraceMs) : null
  const view = (): BookingWorkflowView =>
    !loaded
      ? { state, nextReminderAt: null, remindersSent: 0, noShowAt: null, checkedIn: false }
      : {
          state,
          // The API computes the same value for its answers (appointment-row.ts `nextReminderOf`).
          nextReminderAt: iso(state === 'CONFIRMED' ? nextReminderAt(schedule()) : null),
          remindersSent: sent.length,
          noShowAt: iso(noShowAt()),
          checkedIn: plan.checkedIn,
        }

  /** Accepts a step: moves at once, so timers and later updates see it, and plans the re-read of the commit. */
  function accept(next: BookingState): BookingWorkflowView {
    state = next
    awaitingCommit = true
    epoch++
    verifyAt = Date.now() + VERIFY_AFTER_UPDATE_MS
    return view()
  }
  const whileConfirmed = (action: string) => () => {
    if (state !== 'CONFIRMED') refuse(`The appointment is ${state}; it cannot be ${action} (${state} is final).`)
  }

  setHandler(cancelBookingUpdate, () => accept('CANCELLED'), { validator: whileConfirmed('cancelled') })
  // Whether the appointment has started is the API's state machine's check, on the API's clock (asked first); the
  // workflow decides on its own state: a step it has already taken, or a no-show it is deciding, refuses the update.
  setHandler(completeBookingUpdate, () => accept('COMPLETED'), { validator: whileConfirmed('completed') })
  setHandler(noShowBookingUpdate, () => accept('NO_SHOW'), { validator: whileConfirmed('marked as a no-show') })
  setHandler(
    rescheduleBookingUpdate,
    (request) => {
      const previous = plan
      plan = { ...plan, ...request, reminderOffsetsMinutes: request.reminderOffsetsMinutes }
      const providerMoved = previous.providerId !== plan.providerId
      const locationMoved = previous.locationId !== plan.locationId
      // Before the first read `previous` holds placeholders (or an earlier request's parties), so whether the parties
      // moved since the start is unknown: the attributes follow the request. Runs from before the patch compared the
      // location only there (always "moved" from the placeholder for the first request).
      const follow = loaded
        ? providerMoved || locationMoved
        : patched(SEARCH_ATTRIBUTES_BEFORE_READ_PATCH) || locationMoved
      if (follow) searchAttributesFollow()
      return accept('CONFIRMED')
    },
    { validator: (_request: RescheduleRequest) => whileConfirmed('rescheduled')() }
  )
  setHandler(bookingChangedSignal, () => {
    changed = true
  })
  setHandler(cancelBookingSignal, () => {
    if (state === 'CONFIRMED') operatorFinal = 'CANCELLED'
  })
  setHandler(completeBookingSignal, () => {
    if (state === 'CONFIRMED') operatorFinal = 'COMPLETED'
  })
  setHandler(bookingStatusQuery, () => ({ appointmentId: input.appointmentId, state }))
  setHandler(bookingViewQuery, view)

  function searchAttributesFollow() {
    // Moved to another provider: operators find the workflow by the appointment's current parties.
    upsertSearchAttributes([
      { key: searchAttributeKeys.ProviderId, value: plan.providerId },
      { key: searchAttributeKeys.LocationId, value: plan.locationId },
    ])
  }

  /**
   * Re-reads the appointment and follows the database, unless an update was accepted while it read. A step accepted
   * but not yet seen committed stays until the verification re-read (`force`): a signal about another change must
   * not undo it, but a request that never committed is undone then.
   */
  async function reread(force = false): Promise<void> {
    const started = epoch
    const fresh = await activities.loadBookingPlan(input)
    if (epoch !== started) return
    const moved = fresh.providerId !== plan.providerId || fresh.locationId !== plan.locationId
    plan = fresh
    if (moved) searchAttributesFollow()
    if (followsDatabase({ force, freshStatus: fresh.status, awaitingCommit, state })) {
      // The database's word: a final status, a committed reschedule, or a step whose request never committed.
      state = fresh.status
      awaitingCommit = false
      verifyAt = null
    }
  }

  {
    const fresh = patched(FIRST_READ_LOCAL_PATCH)
      ? await local.loadBookingPlan(input)
      : await activities.loadBookingPlan(input)
    plan = fresh
    loaded = true
    // An update accepted before this read keeps its state until its commit is seen (as in `reread`).
    if (epoch === 0 || fresh.status !== 'CONFIRMED' || state === 'CONFIRMED') {
      state = fresh.status
      awaitingCommit = false
      verifyAt = epoch === 0 ? null : verifyAt
    }
  }

  while (state === 'CONFIRMED' || awaitingCommit) {
    const next = pending()[0]
    const deadline = noShowAt()
    const wakeAt = bookingWakeAt(
      { reminderAt: next?.at ?? null, noShowAt: deadline, verifyAt },
      plan.endsAt,
      Date.now()
    )
    setCurrentDetails(
      `State: ${state}${awaitingCommit ? ' (accepted, awaiting commit)' : ''} · reminders sent: ${sent.length} · ` +
        `next reminder: ${iso(next?.at) ?? 'none'} · no-show at: ${iso(deadline) ?? 'n/a'}`
    )
    const seen = epoch
    const woken = await condition(
      () => changed || epoch !== seen || operatorFinal !== null,
      Math.max(1, wakeAt - Date.now())
    )
    if (operatorFinal !== null && state === 'CONFIRMED') {
      // An operator's signal: made through the appointment's transitions, unless the API already moved the appointment
      // to another final state.
      const found = await activities.recordAppointmentStatus({ ...input, status: operatorFinal })
      if (found === 'CONFIRMED' && patched(OPERATOR_STEP_REFUSED_PATCH)) {
        // The state machine refused it (completing before the start): nothing changed, the lifecycle goes on.
        log.warn('operator step refused', { appointmentId: input.appointmentId, step: operatorFinal })
        operatorFinal = null
        continue
      }
      state = found
      awaitingCommit = false
      break
    }
    if (changed) {
      changed = false
      await reread()
      continue
    }
    if (woken) continue
    const due = dueBookingStep(
      { reminderAt: next?.at ?? null, noShowAt: deadline, verifyAt },
      state === 'CONFIRMED',
      Date.now()
    )
    if (due === 'VERIFY') {
      verifyAt = null
      await reread(true)
    } else if (due === 'REMIND' && next) {
      sent.push(next.key)
      const outcome = await activities.recordBookingReminder({
        ...input,
        startsAt: plan.startsAt,
        offsetMinutes: next.offsetMinutes,
        key: next.key,
      })
      // The appointment moved or closed and no signal said so yet: follow the database.
      if (outcome === 'STALE') {
        sent.pop()
        await reread()
      }
    } else if (due === 'NO_SHOW') {
      // Decided in this turn: a complete or no-show update arriving while the activity runs is refused.
      state = 'NO_SHOW'
      const found = await activities.markNoShow(input)
      // Every update was refused meanwhile (the state was not CONFIRMED), except a reschedule accepted just before:
      // the database under the row lock decided, and the workflow follows it.
      state = found.status
      awaitingCommit = false
      plan = { ...plan, checkedIn: found.checkedIn }
    } else {
      await reread()
    }
  }
  await activities.settleBookingReminders(input)
  // Updates answered moments ago complete before the workflow does.
  await condition(allHandlersFinished)
  log.info('booking closed', { appointmentId: input.appointmentId, state, remindersSent: sent.length })
  // The outcome keeps the spine's shape; the reminders sent stay readable through the bookingView query.
  return { appointmentId: input.appointmentId, state }
}
