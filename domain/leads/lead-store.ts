/**
 * @module Reading and locking lead rows: the view the API answers with (status, qualification and its reasons,
 * matches, offered slots, follow-ups), the list, the row lock every write takes first, and the snapshot the workflow
 * reads. Every lead write locks the row (`FOR UPDATE`), so the API's request and the workflow's activities for one
 * lead go one after the other, and an activity that follows an accepted update sees what the request committed.
 */
import type { Lead, Prisma } from '../../generated/prisma/client.ts'
import type { UnitOfWork } from '../../infra/unit-of-work.ts'
import {
  LEAD_QUALIFICATION_KIND,
  leadQualificationWorkflowId,
  type LeadSnapshot,
} from '../../common/leads/lead-qualification-contract.ts'
import { notFound } from '../errors.ts'
import { listNotificationsWhere, type NotificationListQuery } from '../care-notifications/care-notifications.ts'
import { findPage, parseList, type SortParam } from '../listing.ts'
import { leadPolicyOf, type LeadPolicy } from '../../common/leads/lead-policy.ts'
import type { LeadStatus } from '../../common/leads/lead-state.ts'

export type LeadRow = Lead

/** Locks a lead of the unit's tenant for the rest of the transaction. @throws AppError `not_found` */
export async function lockLead({ tx, tenantId }: UnitOfWork, leadId: string): Promise<LeadRow> {
  await tx.$queryRaw`SELECT id FROM leads WHERE id = ${leadId} AND tenant_id = ${tenantId} FOR UPDATE`
  const lead = await tx.lead.findFirst({ where: { id: leadId, tenantId } })
  if (!lead) throw notFound('lead', leadId)
  return lead
}

/** What the workflow needs to know of a row. */
export const snapshotOf = (lead: LeadRow): LeadSnapshot => ({
  status: lead.status,
  offeredAt: lead.offeredAt?.getTime() ?? null,
  followUpsSent: lead.followUpsSent,
})

/**
 * Settles the lead's OPEN follow-up notifications when it closes: RESOLVED when booked (the family answered),
 * CANCELLED otherwise (nobody needs to act any more).
 */
export async function settleLeadNotifications(
  uow: UnitOfWork,
  leadId: string,
  status: LeadStatus,
  now: Date
): Promise<void> {
  await uow.tx.careNotification.updateMany({
    where: {
      tenantId: uow.tenantId,
      workflowKind: LEAD_QUALIFICATION_KIND,
      status: 'OPEN',
      details: { path: ['leadId'], equals: leadId },
    },
    data: { status: status === 'BOOKED' ? 'RESOLVED' : 'CANCELLED', resolvedAt: now },
  })
}

const iso = (d: Date | null) => d?.toISOString() ?? null
const dateOf = (d: Date | null) => (d ? d.toISOString().slice(0, 10) : null)

/** The API's view of a lead. */
export function leadView(lead: LeadRow, policy: LeadPolicy = leadPolicyOf()) {
  return {
    id: lead.id,
    status: lead.status,
    clientId: lead.clientId,
    childId: lead.childId,
    contact: { name: lead.contactName, email: lead.contactEmail, phone: lead.contactPhone },
    needs: {
      disciplines: lead.disciplines,
      concerns: lead.concerns,
      languages: lead.languages,
      ageMonths: lead.childAgeMonths,
      dateOfBirth: dateOf(lead.childDateOfBirth),
      payer: lead.payer,
      settingMode: lead.settingMode as 'IN_PERSON' | 'TELEHEALTH' | 'ANY',
      locationId: lead.locationId,
      postalArea: lead.postalArea,
      preferredTimes: (lead.preferredTimes ?? null) as unknown,
    },
    qualification: (lead.qualification ?? null) as unknown,
    servedLocationId: lead.servedLocationId,
    matches: lead.matches as unknown[],
    matchedAt: iso(lead.matchedAt),
    offeredSlots: lead.offeredSlots as unknown[],
    offeredAt: iso(lead.offeredAt),
    followUps: { sent: lead.followUpsSent, max: policy.maxFollowUps, nextAt: iso(lead.nextFollowUpAt) },
    respondBy: iso(lead.respondBy),
    appointmentId: lead.appointmentId,
    closedReason: lead.closedReason,
    closedNote: lead.closedNote,
    closedAt: iso(lead.closedAt),
    workflowId: leadQualificationWorkflowId(lead.tenantId, lead.id),
    createdAt: lead.createdAt.toISOString(),
    updatedAt: lead.updatedAt.toISOString(),
  }
}

export type LeadView = ReturnType<typeof leadView>

/** A lead of the unit's tenant. @throws AppError `not_found` */
export async function getLead({ tx, tenantId }: UnitOfWork, leadId: string): Promise<LeadRow> {
  const lead = await tx.lead.findFirst({ where: { id: leadId, tenantId } })
  if (!lead) throw notFound('lead', leadId)
  return lead
}

export const LEAD_SORTS = ['createdAt', 'updatedAt'] as const

export interface LeadListQuery {
  limit: number
  cursor?: string
  sort: SortParam<(typeof LEAD_SORTS)[number]>
  status?: LeadStatus
  locationId?: string
}

/** A page of the tenant's leads, newest first by default, filtered by status or by the location served. */
export async function listLeads(uow: UnitOfWork, query: LeadListQuery) {
  const filters: Prisma.LeadWhereInput[] = [
    { tenantId: uow.tenantId },
    ...(query.status ? [{ status: query.status }] : []),
    ...(query.locationId ? [{ servedLocationId: query.locationId }] : []),
  ]
  return findPage(parseList(query), filters, (args) => uow.tx.lead.findMany(args))
}

/**
 * A page of a lead's follow-up notifications (what the centre must act on: contact the family), newest first by
 * default. They name the lead in their details, since a care notification's subject is a child or a provider.
 * @throws AppError `not_found`
 */
export async function listLeadNotifications(uow: UnitOfWork, leadId: string, query: NotificationListQuery) {
  await getLead(uow, leadId)
  return listNotificationsWhere(
    uow,
    { tenantId: uow.tenantId, workflowKind: LEAD_QUALIFICATION_KIND, details: { path: ['leadId'], equals: leadId } },
    query
  )
}
