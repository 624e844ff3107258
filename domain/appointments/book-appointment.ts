/**
 * @module Writing a new CONFIRMED appointment, shared by a single booking and by every occurrence of a series: the
 * parties are checked and the provider's row locked, the slot is checked against the availability rules, the row is
 * inserted (the database refuses a double booking), its appointment workflow is queued in the outbox and its
 * `booking.created` event recorded, all in the caller's unit of work.
 */
import { Prisma, type Appointment } from '../../generated/prisma/client.ts'
import type { AppointmentType } from '../../generated/prisma/enums.ts'
import type { UnitOfWork } from '../../infra/unit-of-work.ts'
import {
  APPOINTMENT_WORKFLOW_KIND,
  APPOINTMENT_WORKFLOW,
  appointmentWorkflowId,
  type AppointmentWorkflowInput,
} from '../../common/appointments/appointment-workflow-contract.ts'
import { slotUnavailableReason, slotUnavailableError } from '../availability/assert-slot-bookable.ts'
import { validationError, type AppError, type FieldError } from '../errors.ts'
import { recordEvent } from '../events/record-event.ts'
import { newId } from '../ids.ts'
import { priceForService, type ServicePrice } from '../pricing/price-for-service.ts'
import type { WorkflowOutbox } from '../workflow-runs/workflow-outbox.ts'
import type { AppointmentRow } from './appointment-row.ts'
import { defaultService, type Interval } from './appointment-rules.ts'
import { overlapError, overlapViolation } from './overlap-violation.ts'

/**
 * The child, the provider (row locked) and the provider's location, checked once per booking or series, with what the
 * new appointment's answer and its `booking.created` price need of them (read here rather than again after the insert).
 */
export interface AppointmentParties {
  childId: string
  provider: { id: string; name: string; locationId: string; disciplines: string[] }
  location: { id: string; timeZone: string; currency: string; reminderOffsetsMinutes: number[] }
}

export interface NewAppointment {
  type: AppointmentType
  /** Defaults by {@link defaultService}. */
  service?: string
  interval: Interval
  notes?: string | null
  series?: { id: string; occurrenceDate: Date }
}

/**
 * Checks that the child and the provider exist in the unit's tenant and locks both rows for the rest of the
 * transaction (provider first, then child: one order everywhere, so two bookings cannot wait on each other).
 *
 * The provider's lock makes the availability checks of two bookings of one provider (working hours, buffers) run
 * one after the other. The child's lock keeps two bookings of one child with different providers from inserting
 * overlapping rows at the same moment: on PostgreSQL each would then wait on the other inside the exclusion
 * constraint's check and one would die as a deadlock (a 500) instead of a clean 23P01. The overlap guarantee itself
 * is the database's exclusion constraints, whatever path writes the row. `FOR NO KEY UPDATE` serialises bookings
 * without blocking inserts elsewhere that merely reference these rows (foreign-key checks).
 * @throws AppError `validation_error` naming `childId` (`not_found`, `archived`) and/or `providerId` (`not_found`)
 */
export async function lockAppointmentParties(
  uow: UnitOfWork,
  input: { childId: string; providerId: string },
  paths: { childId: string; providerId: string } = { childId: 'childId', providerId: 'providerId' }
): Promise<AppointmentParties> {
  const { tenantId } = uow
  // One round trip for both rows and the provider's location (only the provider's row is locked of those two), issue
  // 22. The child's scan compares with the provider's row count: that makes the provider's lock an init plan taken
  // before the child's, the order every booking takes them in.
  const [row] = await uow.query<{
    id: string | null
    name: string
    location_id: string
    disciplines: string[] | null
    time_zone: string | null
    currency: string | null
    reminder_offsets_minutes: number[] | null
    child_id: string | null
    child_archived: boolean | null
  }>(Prisma.sql`
    WITH provider AS (
      SELECT p.id, p.name, p.location_id, p.disciplines, l.time_zone, l.currency, l.reminder_offsets_minutes
      FROM providers p LEFT JOIN locations l ON l.id = p.location_id AND l.tenant_id = ${tenantId}
      WHERE p.id = ${input.providerId} AND p.tenant_id = ${tenantId} FOR NO KEY UPDATE OF p
    ), child AS (
      SELECT id, archived_at IS NOT NULL AS archived FROM children
      WHERE id = ${input.childId} AND tenant_id = ${tenantId} AND (SELECT count(*) FROM provider) >= 0
      FOR NO KEY UPDATE
    )
    SELECT provider.*, child.id AS child_id, child.archived AS child_archived
    FROM (SELECT 1) AS one LEFT JOIN provider ON true LEFT JOIN child ON true`)
  const provider = row?.id ? { ...row, id: row.id } : undefined
  const child = row?.child_id ? { id: row.child_id, archived: row.child_archived === true } : undefined
  const missing: FieldError[] = []
  if (!child) missing.push({ path: paths.childId, code: 'not_found', message: 'No child with this id.' })
  // An archived child's record stays readable, but nothing new is scheduled for them until they are restored.
  else if (child.archived) missing.push({ path: paths.childId, code: 'archived', message: 'The child is archived.' })
  if (!provider) missing.push({ path: paths.providerId, code: 'not_found', message: 'No provider with this id.' })
  if (missing.length || !provider) throw validationError(missing)
  // A provider's location is always the tenant's (a foreign key and row-level security); as findFirstOrThrow did.
  if (provider.time_zone === null)
    throw new Error(`location ${provider.location_id} of provider ${provider.id} not found`)
  return {
    childId: input.childId,
    provider: {
      id: provider.id,
      name: provider.name,
      locationId: provider.location_id,
      disciplines: provider.disciplines ?? [],
    },
    location: {
      id: provider.location_id,
      timeZone: provider.time_zone,
      currency: provider.currency ?? 'USD',
      reminderOffsetsMinutes: provider.reminder_offsets_minutes ?? [],
    },
  }
}

/**
 * Why the provider cannot take this interval under the availability rules (working hours, time off, buffers,
 * minimum notice, other appointments), as the 409 to answer; undefined when it can.
 */
export async function slotProblem(
  uow: UnitOfWork,
  input: { providerId: string; interval: Interval; excludeAppointmentId?: string; now: Date }
): Promise<AppError | undefined> {
  const reason = await slotUnavailableReason(uow, {
    providerId: input.providerId,
    startsAt: input.interval.startsAt,
    endsAt: input.interval.endsAt,
    excludeAppointmentId: input.excludeAppointmentId,
    now: input.now,
  })
  return reason ? slotUnavailableError(reason) : undefined
}

/** A calendar date as `YYYY-MM-DD` in UTC, as Prisma writes a `@db.Date` (the driver would write local time). */
const dateOnly = (date: Date) => date.toISOString().slice(0, 10)

export interface InsertDeps {
  outbox: WorkflowOutbox
  /**
   * When the appointment workflow's first task should run, for an appointment starting at `startsAt` under these reminder
   * offsets (epoch ms; null: at once). The appointment service's rule: reminder-schedule.ts `appointmentWorkflowStartAt`.
   */
  workflowStartAt: (startsAt: Date, reminderOffsetsMinutes: number[]) => number | null
}

export interface InsertOptions {
  /** Run the insert in a savepoint, so that a refused overlap leaves the transaction usable (series). */
  savepoint?: boolean
  /** Prices already looked up in this unit, by service and type (a series prices its occurrences once). */
  prices?: Map<string, ServicePrice>
}

/**
 * Inserts a CONFIRMED appointment for checked parties, queues its appointment workflow and records `booking.created`.
 * The caller has already checked the slot ({@link slotProblem}).
 * @throws AppError `slot_unavailable` when the database refuses an overlap of the provider or of the child
 */
export async function insertAppointment(
  uow: UnitOfWork,
  { outbox, workflowStartAt }: InsertDeps,
  parties: AppointmentParties,
  input: NewAppointment,
  { savepoint = false, prices = new Map() }: InsertOptions = {}
): Promise<AppointmentRow> {
  const { tx, tenantId } = uow
  const service = input.service ?? defaultService(parties.provider.disciplines, input.type)
  // No `include`: the provider's name and the location's reminder policy are the parties', and a new appointment has
  // no reschedules. Reading them back cost three more queries per booking (issue 22). Written straight through the
  // driver (UnitOfWork.query), and not read back either: every column is known here.
  const now = new Date()
  const row: Appointment = {
    id: newId('appointment'),
    tenantId,
    locationId: parties.location.id,
    childId: parties.childId,
    providerId: parties.provider.id,
    type: input.type,
    service,
    status: 'CONFIRMED',
    startsAt: input.interval.startsAt,
    endsAt: input.interval.endsAt,
    timeZone: parties.location.timeZone,
    notes: input.notes ?? null,
    seriesId: input.series?.id ?? null,
    occurrenceDate: input.series?.occurrenceDate ?? null,
    cancelledAt: null,
    cancellationReason: null,
    cancellationNote: null,
    lateCancellation: null,
    completedAt: null,
    noShowAt: null,
    createdAt: now,
    updatedAt: now,
  }
  const appointment: AppointmentRow = {
    ...row,
    provider: { id: parties.provider.id, name: parties.provider.name },
    location: { reminderOffsetsMinutes: parties.location.reminderOffsetsMinutes },
    reschedules: [],
  }
  const priceKey = `${row.locationId}/${service}/${row.type}`
  const known = prices.get(priceKey)
  /** The outbox row and the price lookup: neither depends on what the INSERT answers. */
  const followUps = () =>
    Promise.all([
      outbox.enqueue(uow, {
        workflowType: APPOINTMENT_WORKFLOW,
        workflowId: appointmentWorkflowId(row.id),
        args: [{ tenantId, appointmentId: row.id } satisfies AppointmentWorkflowInput],
        searchAttributes: {
          TenantId: tenantId,
          WorkflowKind: APPOINTMENT_WORKFLOW_KIND,
          AppointmentId: row.id,
          ChildId: row.childId,
          ProviderId: row.providerId,
          LocationId: row.locationId,
        },
        startAt: workflowStartAt(row.startsAt, parties.location.reminderOffsetsMinutes),
        // The booking's calls (views, updates, signals) wait for it: appointment-workflow-calls.ts.
        afterAnswer: true,
      }),
      known ??
        priceForService(uow, {
          locationId: row.locationId,
          service,
          appointmentType: row.type,
          // Known from the parties: the price lookup need not read the location again.
          location: { id: parties.location.id, currency: parties.location.currency },
        }),
    ])

  if (savepoint) await tx.$executeRaw`SAVEPOINT book_occurrence`
  const inserting = uow.query(Prisma.sql`
    INSERT INTO appointments (id, tenant_id, location_id, child_id, provider_id, type, service, status, starts_at,
      ends_at, time_zone, notes, series_id, occurrence_date, created_at, updated_at)
    VALUES (${row.id}, ${row.tenantId}, ${row.locationId}, ${row.childId}, ${row.providerId},
      ${row.type}::"AppointmentType", ${row.service}, 'CONFIRMED', ${row.startsAt}::timestamptz,
      ${row.endsAt}::timestamptz, ${row.timeZone}, ${row.notes}, ${row.seriesId},
      ${row.occurrenceDate ? dateOnly(row.occurrenceDate) : null}::date, ${now}::timestamptz, ${now}::timestamptz)`)
  // A single booking sends the follow-ups right behind the INSERT: one round trip for the three, run in that order on
  // the unit's connection. Should the INSERT fail, they fail unrun and the whole unit rolls back, its after-commit
  // work (the workflow start) with it. An occurrence of a series waits for its INSERT: a refused overlap is rolled back
  // to the savepoint and the series goes on, so nothing may have been sent behind it.
  const following = savepoint ? undefined : followUps()
  following?.catch(() => undefined)
  try {
    await inserting
  } catch (error) {
    const party = overlapViolation(error)
    if (savepoint) {
      await tx.$executeRaw`ROLLBACK TO SAVEPOINT book_occurrence`
      await tx.$executeRaw`RELEASE SAVEPOINT book_occurrence`
    }
    if (party) throw overlapError(party)
    throw error
  }
  if (savepoint) await tx.$executeRaw`RELEASE SAVEPOINT book_occurrence`
  const [, price] = await (following ?? followUps())
  prices.set(priceKey, price)
  await recordEvent(uow, 'booking.created', {
    bookingId: row.id,
    childId: row.childId,
    service,
    amount: price.amount,
    currency: price.currency,
  })
  return appointment
}
