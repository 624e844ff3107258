/**
 * @module Taking a family's enquiry: the NEW lead and its qualification workflow's start, through the workflow outbox,
 * in the caller's unit of work (lead-moves.ts says what the changes of a lead share).
 */
import type { UnitOfWork } from '../../infra/unit-of-work.ts'
import {
  LEAD_QUALIFICATION_KIND,
  LEAD_QUALIFICATION_WORKFLOW,
  leadQualificationWorkflowId,
  type LeadQualificationInput,
} from '../../common/leads/lead-qualification-contract.ts'
import { leadPolicyOf } from '../../common/leads/lead-policy.ts'
import { validationError } from '../errors.ts'
import { newId } from '../ids.ts'
import { isValidTimeZone } from '../time.ts'
import { checkLeadReferences, type LeadDeps } from './lead-moves.ts'
import type { CreateLead } from './lead-request.ts'
import { DAY_MS } from '../../common/time/calendar.ts'

/**
 * Takes a family's enquiry as a NEW lead and queues its workflow, which qualifies and matches it moments later.
 * @throws AppError `validation_error` (unknown client, child or location; a bad time zone)
 */
export async function createLead(
  deps: Pick<LeadDeps, 'outbox' | 'dayMs' | 'policy'>,
  uow: UnitOfWork,
  input: CreateLead
) {
  const policy = leadPolicyOf(deps.policy)
  await checkLeadReferences(uow, input)
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
    ...(deps.dayMs && deps.dayMs !== DAY_MS ? { dayMs: deps.dayMs } : {}),
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
  return lead
}
