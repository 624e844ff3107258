/**
 * @module What the API does with leads: takes a family's enquiry (the row and its workflow's start, through the
 * workflow outbox, in one transaction), shows and lists leads, merges a patch of the contact fields, and drives the
 * lead through its workflow: offer, book, close.
 *
 * Each operation locks the lead's row, checks the move against the lifecycle (common/leads/lead-state.ts, through lead-moves.ts), commits that read and
 * asks the workflow with a Temporal update holding no transaction (`UnitOfWork.release`: it decides against its own
 * status and timers), then locks the lead again, checks the move against it as it is now, and records what the
 * workflow accepted. A refusal writes nothing: a booking's appointment is created only after the workflow accepted
 * it. After commit the workflow is told to read the lead again (`leadChanged`).
 */
import type { Client } from '@temporalio/client'
import type { Prisma } from '../../generated/prisma/client.ts'
import type { UnitOfWork } from '../../infra/unit-of-work.ts'
import {
  LEAD_QUALIFICATION_KIND,
  LEAD_QUALIFICATION_WORKFLOW,
  bookLeadUpdate,
  closeLeadUpdate,
  leadChangedSignal,
  leadQualificationWorkflowId,
  offerLeadUpdate,
  type LeadQualificationInput,
} from '../../common/leads/lead-qualification-contract.ts'
import type { AppointmentService } from '../appointments/appointment-service.ts'
import { slotProblem } from '../appointments/book-appointment.ts'
import { askWhileRefused, callWorkflow } from '../workflow-runs/workflow-calls.ts'
import { invalidStateTransition, validationError, type FieldError } from '../errors.ts'
import { newId } from '../ids.ts'
import { applyMergePatch } from '../merge-patch.ts'
import { isValidTimeZone } from '../time.ts'
import type { WorkflowOutbox } from '../workflow-runs/workflow-outbox.ts'
import type { LeadMatch } from './lead-workflow-steps.ts'
import { leadPolicyOf, type LeadPolicy } from '../../common/leads/lead-policy.ts'
import type { CreateLead, PatchLead } from './lead-request.ts'
import { isFinal, type LeadCloseReason } from '../../common/leads/lead-state.ts'
import { assertMove } from './lead-moves.ts'
import {
  getLead,
  leadView,
  listLeads,
  lockLead,
  settleLeadNotifications,
  type LeadListQuery,
  type LeadRow,
} from './lead-store.ts'

export interface LeadServiceDeps {
  outbox: WorkflowOutbox
  temporal: Client
  appointments: Pick<AppointmentService, 'create'>
  /** Length of a day (CARE_WORKFLOW_DAY_MS); tests shorten it. */
  dayMs?: number
  policy?: Partial<LeadPolicy>
}

export interface SlotChoice {
  providerId: string
  startsAt: string
}

/** A slot as a lead offers it: one of its matches' next slots. */
interface OfferedSlot {
  providerId: string
  discipline: string
  startsAt: string
  endsAt: string
  timeZone: string
}

const sameInstant = (a: string, b: string) => Date.parse(a) === Date.parse(b)

/** Checks that the ids a lead names are records of the tenant. @throws AppError `validation_error` */
async function checkReferences(
  uow: UnitOfWork,
  refs: { clientId?: string | null; childId?: string | null; locationId?: string | null }
) {
  const errors: FieldError[] = []
  const where = { tenantId: uow.tenantId }
  if (refs.clientId && !(await uow.tx.client.count({ where: { ...where, id: refs.clientId } }))) {
    errors.push({ path: 'clientId', code: 'not_found', message: 'No client with this id.' })
  }
  if (refs.childId && !(await uow.tx.child.count({ where: { ...where, id: refs.childId } }))) {
    errors.push({ path: 'childId', code: 'not_found', message: 'No child with this id.' })
  }
  if (refs.locationId && !(await uow.tx.location.count({ where: { ...where, id: refs.locationId } }))) {
    errors.push({ path: 'locationId', code: 'not_found', message: 'No location with this id.' })
  }
  if (errors.length) throw validationError(errors)
}

/** Creates the API side of leads. */
export function createLeadService(deps: LeadServiceDeps) {
  const policy = leadPolicyOf(deps.policy)
  const handle = (uow: UnitOfWork, leadId: string) =>
    deps.temporal.workflow.getHandle(leadQualificationWorkflowId(uow.tenantId, leadId))
  const view = (lead: LeadRow) => leadView(lead, policy)

  /**
   * Asks the lead's workflow to accept a move holding no transaction (the reads commit first), then locks the lead
   * again in the unit's next transaction and checks the move against it as it is now. Once that transaction commits,
   * whatever the answer, the workflow is told to read the lead again (`leadChanged`), so it follows what was written.
   * @throws AppError `invalid_state_transition` (refused by the workflow, or the lead moved meanwhile),
   *   `dependency_unavailable`
   */
  async function askThenRelock<A>(
    uow: UnitOfWork,
    leadId: string,
    to: Parameters<typeof assertMove>[1],
    call: (workflow: ReturnType<typeof handle>) => Promise<A>
  ) {
    // The move was just checked against the row: a refusal may only mean the workflow has not yet taken the result
    // of its own activity that made the row so (askWhileRefused).
    const answer = await uow.release(() =>
      callWorkflow(deps.temporal, 'lead qualification', () => askWhileRefused(() => call(handle(uow, leadId))))
    )
    uow.afterCommit(async () => {
      await deps.temporal
        .withDeadline(Date.now() + 2000, () => handle(uow, leadId).signal(leadChangedSignal))
        // Ended, or Temporal down: the workflow reads the lead again a minute after the update anyway.
        .catch(() => undefined)
    })
    const lead = await lockLead(uow, leadId)
    assertMove(lead.status, to)
    return { answer, lead }
  }

  /**
   * Takes a family's enquiry as a NEW lead and queues its workflow, which qualifies and matches it moments later.
   * @throws AppError `validation_error` (unknown client, child or location; a bad time zone)
   */
  async function create(uow: UnitOfWork, input: CreateLead) {
    await checkReferences(uow, input)
    if (input.preferredTimes && !isValidTimeZone(input.preferredTimes.timeZone)) {
      throw validationError([
        { path: 'preferredTimes.timeZone', code: 'invalid_time_zone', message: 'Not an IANA time zone.' },
      ])
    }
    const lead = await uow.tx.lead.create({
      data: {
        id: newId('lead'),
        tenantId: uow.tenantId,
        clientId: input.clientId ?? null,
        childId: input.childId ?? null,
        contactName: input.contact?.name ?? null,
        contactEmail: input.contact?.email ?? null,
        contactPhone: input.contact?.phone ?? null,
        locationId: input.locationId ?? null,
        postalArea: input.postalArea ?? null,
        childAgeMonths: input.ageMonths ?? null,
        childDateOfBirth: input.dateOfBirth ? new Date(`${input.dateOfBirth}T00:00:00.000Z`) : null,
        disciplines: [...new Set(input.disciplines)],
        concerns: [...new Set(input.concerns ?? [])],
        languages: [...new Set(input.languages ?? [])],
        payer: input.payer,
        settingMode: input.settingMode,
        ...(input.preferredTimes ? { preferredTimes: input.preferredTimes } : {}),
      },
    })
    const workflowInput: LeadQualificationInput = {
      tenantId: uow.tenantId,
      leadId: lead.id,
      ...(deps.dayMs && deps.dayMs !== 86_400_000 ? { dayMs: deps.dayMs } : {}),
      ...(deps.policy ? { policy: deps.policy } : {}),
    }
    await deps.outbox.enqueue(uow, {
      workflowType: LEAD_QUALIFICATION_WORKFLOW,
      workflowId: leadQualificationWorkflowId(uow.tenantId, lead.id),
      args: [workflowInput],
      searchAttributes: {
        TenantId: uow.tenantId,
        WorkflowKind: LEAD_QUALIFICATION_KIND,
        ...(input.locationId ? { LocationId: input.locationId } : {}),
        ...(input.childId ? { ChildId: input.childId } : {}),
      },
      summary: `Lead qualification: lead ${lead.id}`,
      details: [
        `Marketplace lead \`${lead.id}\` (tenant \`${uow.tenantId}\`): qualified by rules (needs offered, age served,`,
        `location served, payer accepted), matched to providers, offered slots, followed up every ${policy.followUpEveryDays}`,
        `days (at most ${policy.maxFollowUps}) and closed LOST after ${policy.respondWithinDays} days without an answer, or BOOKED.`,
        'The family’s contact and needs live in the database only.',
        '',
        `State: \`GET /v1/leads/${lead.id}\``,
      ].join('\n'),
    })
    return view(lead)
  }

  /** One lead. @throws AppError `not_found` */
  const get = async (uow: UnitOfWork, leadId: string) => view(await getLead(uow, leadId))

  /** A page of leads. */
  async function list(uow: UnitOfWork, query: LeadListQuery) {
    const page = await listLeads(uow, query)
    return { data: page.data.map(view), nextCursor: page.nextCursor }
  }

  /**
   * Merges a patch of the writable fields (client, child, contact). A closed lead keeps what it was closed with.
   * @throws AppError `not_found`, `invalid_state_transition` (closed), `validation_error`
   */
  async function patch(uow: UnitOfWork, leadId: string, body: PatchLead) {
    const lead = await lockLead(uow, leadId)
    if (isFinal(lead.status))
      throw invalidStateTransition(`The lead is ${lead.status}: a closed lead keeps what it was closed with.`)
    const current = {
      clientId: lead.clientId,
      childId: lead.childId,
      contact: { name: lead.contactName, email: lead.contactEmail, phone: lead.contactPhone },
    }
    const next = applyMergePatch(current, body) as {
      clientId?: string | null
      childId?: string | null
      contact?: { name?: string | null; email?: string | null; phone?: string | null } | null
    }
    await checkReferences(uow, { clientId: body.clientId, childId: body.childId })
    const contact = next.contact ?? {}
    if (!next.clientId && !contact.email && !contact.phone) {
      throw validationError([
        { path: 'contact', code: 'required', message: 'A lead keeps a clientId or a contact email or phone.' },
      ])
    }
    const updated = await uow.tx.lead.update({
      where: { id: lead.id },
      data: {
        clientId: next.clientId ?? null,
        childId: next.childId ?? null,
        contactName: contact.name ?? null,
        contactEmail: contact.email ?? null,
        contactPhone: contact.phone ?? null,
      },
    })
    return view(updated)
  }

  /**
   * Offers the family slots chosen from the lead's matches; a new offer replaces the last and restarts follow-ups.
   * @throws AppError `not_found`, `invalid_state_transition`, `validation_error` (`not_matched`: a slot not among
   *   the matches), `dependency_unavailable`
   */
  async function offer(uow: UnitOfWork, leadId: string, slots: SlotChoice[]) {
    const lead = await lockLead(uow, leadId)
    assertMove(lead.status, 'OFFERED')
    const matches = lead.matches as unknown as LeadMatch[]
    const errors: FieldError[] = []
    const offered: OfferedSlot[] = []
    slots.forEach((choice, index) => {
      const found = matches
        .filter((m) => m.providerId === choice.providerId)
        .flatMap((m) => m.nextSlots.map((s) => ({ ...s, discipline: m.discipline })))
        .find((s) => sameInstant(s.startsAt, choice.startsAt))
      if (!found)
        errors.push({ path: `slots.${index}`, code: 'not_matched', message: "Not one of the lead's matched slots." })
      else if (!offered.some((o) => o.providerId === choice.providerId && sameInstant(o.startsAt, found.startsAt))) {
        offered.push({
          providerId: choice.providerId,
          discipline: found.discipline,
          startsAt: found.startsAt,
          endsAt: found.endsAt,
          timeZone: found.timeZone,
        })
      }
    })
    if (errors.length) throw validationError(errors)
    const { answer: accepted } = await askThenRelock(uow, leadId, 'OFFERED', (workflow) =>
      workflow.executeUpdate(offerLeadUpdate)
    )
    const updated = await uow.tx.lead.update({
      where: { id: lead.id },
      data: {
        status: 'OFFERED',
        offeredSlots: offered as unknown as Prisma.InputJsonArray,
        offeredAt: new Date(accepted.offeredAt),
        followUpsSent: 0,
        nextFollowUpAt: accepted.nextFollowUpAt === null ? null : new Date(accepted.nextFollowUpAt),
        respondBy: new Date(accepted.respondBy),
      },
    })
    // The follow-ups of the offer this one replaces are moot.
    await settleLeadNotifications(uow, lead.id, 'LOST', new Date(accepted.offeredAt))
    return view(updated)
  }

  /**
   * Books an offered slot through the normal booking path (availability rules, overlap guarantee, booking workflow,
   * `booking.created`) and closes the lead BOOKED with the appointment. The appointment is written first: a slot
   * taken meanwhile answers `slot_unavailable` without asking the workflow; a refusal by the workflow (the window
   * closed a moment ago) rolls the appointment back.
   * @throws AppError `not_found`, `invalid_state_transition`, `validation_error` (`not_offered`, child `required`),
   *   `slot_unavailable`, `dependency_unavailable`
   */
  async function book(
    uow: UnitOfWork,
    leadId: string,
    choice: SlotChoice & { childId?: string; type: 'EVALUATION' | 'THERAPY_SESSION' | 'SCREENING' | 'CONSULTATION' },
    now: Date
  ) {
    const lead = await lockLead(uow, leadId)
    assertMove(lead.status, 'BOOKED')
    const slot = (lead.offeredSlots as unknown as OfferedSlot[]).find(
      (s) => s.providerId === choice.providerId && sameInstant(s.startsAt, choice.startsAt)
    )
    const childId = choice.childId ?? lead.childId
    const errors: FieldError[] = []
    if (!slot)
      errors.push({ path: 'startsAt', code: 'not_offered', message: 'Not one of the slots offered to the family.' })
    if (!childId)
      errors.push({
        path: 'childId',
        code: 'required',
        message: 'Booking needs the child’s record: give childId, or PATCH it onto the lead.',
      })
    if (errors.length || !slot || !childId) throw validationError(errors)
    // A slot taken meanwhile answers before the workflow is asked; the booking itself checks again after the answer.
    const taken = await slotProblem(uow, {
      providerId: slot.providerId,
      interval: { startsAt: new Date(slot.startsAt), endsAt: new Date(slot.endsAt) },
      now,
    })
    if (taken) throw taken
    await askThenRelock(uow, leadId, 'BOOKED', (workflow) => workflow.executeUpdate(bookLeadUpdate))
    const appointment = await deps.appointments.create(uow, {
      childId,
      providerId: slot.providerId,
      type: choice.type,
      service: slot.discipline,
      startsAt: new Date(slot.startsAt),
      endsAt: new Date(slot.endsAt),
    })
    const updated = await uow.tx.lead.update({
      where: { id: lead.id },
      data: { status: 'BOOKED', childId, appointmentId: appointment.id, closedAt: now, nextFollowUpAt: null },
    })
    await settleLeadNotifications(uow, lead.id, 'BOOKED', now)
    return view(updated)
  }

  /**
   * Closes an open lead LOST with a reason.
   * @throws AppError `not_found`, `invalid_state_transition`, `dependency_unavailable`
   */
  async function close(uow: UnitOfWork, leadId: string, body: { reason: LeadCloseReason; note?: string }, now: Date) {
    const lead = await lockLead(uow, leadId)
    assertMove(lead.status, 'LOST')
    await askThenRelock(uow, leadId, 'LOST', (workflow) =>
      workflow.executeUpdate(closeLeadUpdate, { args: [{ reason: body.reason }] })
    )
    const updated = await uow.tx.lead.update({
      where: { id: lead.id },
      data: {
        status: 'LOST',
        closedReason: body.reason,
        closedNote: body.note ?? null,
        closedAt: now,
        nextFollowUpAt: null,
      },
    })
    await settleLeadNotifications(uow, lead.id, 'LOST', now)
    return view(updated)
  }

  return { create, get, list, patch, offer, book, close }
}

export type LeadService = ReturnType<typeof createLeadService>
