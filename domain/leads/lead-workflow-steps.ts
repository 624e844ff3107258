/**
 * @module What the lead qualification workflow's activities do, each in one unit of work with the lead's row locked:
 * qualify, match, record a follow-up, close an unanswered offer, and re-read the lead. Each is idempotent and acts
 * only from the status it expects (a lead a person closed meanwhile is left alone), and each reports the lead's
 * snapshot so the workflow follows the database.
 */
import type { Prisma } from '../../generated/prisma/client.ts'
import type { UnitOfWork } from '../../infra/unit-of-work.ts'
import { LEAD_QUALIFICATION_KIND, type LeadSnapshot } from '../../common/leads/lead-qualification-contract.ts'
import { recordCareNotification } from '../care-notifications/care-notifications.ts'
import { AppError } from '../errors.ts'
import { loadCandidates } from '../therapists/match-candidates.ts'
import { ageInMonths } from '../therapists/match-needs.ts'
import type { MatchRequest } from '../therapists/match-request.ts'
import { matchTherapists, type ProviderMatch } from '../therapists/match-service.ts'
import type { LeadPolicy } from '../../common/leads/lead-policy.ts'
import { qualifyLead, type SettingMode } from './lead-qualification.ts'
import { lockLead, settleLeadNotifications, snapshotOf, type LeadRow } from './lead-store.ts'

/** The child's age in months now: as given, from the date of birth given, or from the child's record. */
async function ageOf(uow: UnitOfWork, lead: LeadRow, now: Date): Promise<number | null> {
  if (lead.childAgeMonths !== null) return lead.childAgeMonths
  if (lead.childDateOfBirth) return ageInMonths(lead.childDateOfBirth, now)
  if (!lead.childId) return null
  const child = await uow.tx.child.findFirst({
    where: { id: lead.childId, tenantId: uow.tenantId },
    select: { dateOfBirth: true },
  })
  return child ? ageInMonths(child.dateOfBirth, now) : null
}

/** Qualifies a NEW lead by the rules of lead-qualification.ts and records the outcome with its explanation. */
export async function qualifyStep(uow: UnitOfWork, leadId: string, now: Date): Promise<LeadSnapshot> {
  const lead = await lockLead(uow, leadId)
  if (lead.status !== 'NEW') return snapshotOf(lead)
  const candidates = await loadCandidates(uow, null)
  const bookable = candidates.filter((c) => c.onboardingStatus === 'APPROVED' && !c.offboarded && c.acceptingNewClients)
  const locations = await uow.tx.location.findMany({
    where: { tenantId: uow.tenantId },
    select: { id: true, postalCode: true },
  })
  // A child record removed since the enquiry leaves no age: judged as unknown, which no age band serves.
  const ageMonths = await ageOf(uow, lead, now)
  const q = qualifyLead(
    {
      disciplines: lead.disciplines,
      ageMonths: ageMonths ?? -1,
      payer: lead.payer,
      settingMode: lead.settingMode as SettingMode,
      locationId: lead.locationId,
      postalArea: lead.postalArea,
    },
    bookable,
    locations
  )
  const qualification = {
    outcome: q.outcome,
    checks: q.checks,
    offeredDisciplines: q.offeredDisciplines,
    ageGroup: q.ageGroup,
    decidedAt: now.toISOString(),
  }
  const updated = await uow.tx.lead.update({
    where: { id: lead.id },
    data: {
      status: q.outcome,
      qualification: qualification as unknown as Prisma.InputJsonObject,
      servedLocationId: q.servedLocationId,
      ...(q.outcome === 'DISQUALIFIED' ? { closedAt: now } : {}),
    },
  })
  return snapshotOf(updated)
}

/** One match as the lead keeps it: the provider, why, and the slots to offer. */
export type LeadMatch = ProviderMatch & { discipline: string }

/**
 * Matches a QUALIFIED lead for each needed discipline some provider offers, keeping the best providers that have
 * slots. MATCHED when anyone has; on the last attempt with nobody, LOST (NO_MATCH); otherwise still QUALIFIED.
 */
export async function matchStep(
  uow: UnitOfWork,
  leadId: string,
  policy: LeadPolicy,
  lastAttempt: boolean,
  now: Date
): Promise<LeadSnapshot> {
  const lead = await lockLead(uow, leadId)
  if (lead.status !== 'QUALIFIED') return snapshotOf(lead)
  const qualification = lead.qualification as { offeredDisciplines?: string[] } | null
  const ageMonths = await ageOf(uow, lead, now)
  const matches: LeadMatch[] = []
  for (const discipline of qualification?.offeredDisciplines ?? lead.disciplines) {
    const request: MatchRequest = {
      discipline: discipline as MatchRequest['discipline'],
      ...(ageMonths !== null ? { ageMonths } : {}),
      ...(lead.languages.length ? { languages: lead.languages } : {}),
      ...(lead.concerns.length ? { focusAreas: lead.concerns } : {}),
      setting: {
        mode: lead.settingMode as SettingMode,
        ...(lead.servedLocationId ? { locationId: lead.servedLocationId } : {}),
      },
      payer: lead.payer,
      ...(lead.preferredTimes
        ? { preferredTimes: lead.preferredTimes as unknown as NonNullable<MatchRequest['preferredTimes']> }
        : {}),
      search: { days: policy.searchDays, durationMinutes: 60, slotsPerProvider: 3 },
      limit: policy.matchesPerDiscipline,
    }
    try {
      const result = await matchTherapists(uow, request, now)
      matches.push(...result.data.filter((m) => m.nextSlots.length > 0).map((m) => ({ ...m, discipline })))
    } catch (error) {
      // A request matching refuses (an in-person lead whose location was removed) matches nobody for this discipline.
      if (!(error instanceof AppError) || error.status !== 400) throw error
    }
  }
  const found = matches.length > 0
  const updated = await uow.tx.lead.update({
    where: { id: lead.id },
    data: {
      matches: matches as unknown as Prisma.InputJsonArray,
      matchedAt: now,
      ...(found
        ? { status: 'MATCHED' }
        : lastAttempt
          ? { status: 'LOST', closedReason: 'NO_MATCH', closedAt: now }
          : {}),
    },
  })
  return snapshotOf(updated)
}

export interface FollowUpInput {
  leadId: string
  /** The offer this follow-up belongs to (epoch ms): a follow-up of a replaced offer is not recorded. */
  offeredAt: number
  followUp: number
  nextFollowUpAt: number | null
  respondBy: number
}

/**
 * Records follow-up `n` of an unanswered offer: a care notification telling the centre to contact the family (once:
 * its dedupe key names the lead, the offer and the number), and the lead's count and next follow-up.
 */
export async function followUpStep(uow: UnitOfWork, input: FollowUpInput): Promise<LeadSnapshot> {
  const lead = await lockLead(uow, input.leadId)
  if (
    lead.status !== 'OFFERED' ||
    lead.offeredAt?.getTime() !== input.offeredAt ||
    lead.followUpsSent >= input.followUp
  ) {
    return snapshotOf(lead)
  }
  const slots = lead.offeredSlots as Array<{ providerId: string }>
  await recordCareNotification(uow, {
    workflowKind: LEAD_QUALIFICATION_KIND,
    kind: 'LEAD_FOLLOW_UP',
    // A notification is about a child or a provider: the child when known, else the first offered provider.
    ...(lead.childId ? { childId: lead.childId } : { providerId: slots[0]!.providerId }),
    details: {
      leadId: lead.id,
      followUp: input.followUp,
      offeredSlots: slots.length,
      respondBy: new Date(input.respondBy).toISOString(),
    },
    dedupeKey: `lead-follow-up:${lead.id}:${input.offeredAt}:${input.followUp}`,
  })
  const updated = await uow.tx.lead.update({
    where: { id: lead.id },
    data: {
      followUpsSent: input.followUp,
      nextFollowUpAt: input.nextFollowUpAt === null ? null : new Date(input.nextFollowUpAt),
    },
  })
  return snapshotOf(updated)
}

/** Closes an offer nobody answered: LOST (NO_RESPONSE), its open follow-ups cancelled. */
export async function closeNoResponseStep(uow: UnitOfWork, leadId: string, now: Date): Promise<LeadSnapshot> {
  const lead = await lockLead(uow, leadId)
  if (lead.status !== 'OFFERED') return snapshotOf(lead)
  const updated = await uow.tx.lead.update({
    where: { id: lead.id },
    data: { status: 'LOST', closedReason: 'NO_RESPONSE', closedAt: now, nextFollowUpAt: null },
  })
  await settleLeadNotifications(uow, lead.id, 'LOST', now)
  return snapshotOf(updated)
}

/** The lead as committed, read under its lock (so after any request holding it). */
export async function settleStep(uow: UnitOfWork, leadId: string): Promise<LeadSnapshot> {
  return snapshotOf(await lockLead(uow, leadId))
}
