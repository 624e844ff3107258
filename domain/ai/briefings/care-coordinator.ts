/**
 * @module The care-coordinator agent's briefing: loads the facts of the tenant, a location or a child from the care
 * record (sessions and their notes, open assessments, early-intervention enrolments, appointments) inside the
 * request's unit of work (so RLS confines it to the tenant) and applies the pure rules of ./briefing-rules.ts.
 * Rule-based, deterministic: the same record at the same instant gives the same briefing (docs/agents.md).
 */
import type { UnitOfWork } from '../../../infra/unit-of-work.ts'
import { localDateOf } from '../../assessments/due-day.ts'
import { planEarlyIntervention } from '../../../common/early-intervention/ei-plan.ts'
import { EI_FACT_COLUMNS, eiFactsOf } from '../../early-intervention/ei-facts.ts'
import { DEFAULT_EI_POLICY } from '../../../common/early-intervention/ei-policy.ts'
import { notFound } from '../../errors.ts'
import {
  assessmentItem,
  eiDeadlineItem,
  noUpcomingSessionItem,
  orderBriefing,
  unsignedNoteItem,
  type BriefingItem,
  type BriefingKind,
  type Priority,
} from './briefing-rules.ts'

export interface BriefingQuery {
  locationId?: string
  childId?: string
}

export interface Briefing {
  generatedAt: string
  scope: { kind: 'TENANT' | 'LOCATION' | 'CHILD'; id: string }
  summary: { total: number; byPriority: Record<Priority, number>; byKind: Record<BriefingKind, number> }
  items: BriefingItem[]
}

const ABSENT = new Set(['ABSENT_EXCUSED', 'ABSENT_UNEXCUSED', 'CANCELLED_LATE'])
const dateOf = (d: Date | null) => (d ? d.toISOString().slice(0, 10) : null)

type BriefingChild = { id: string; zone: string } & Parameters<typeof eiFactsOf>[0]

/** Unsigned notes: sessions that should have ended (their end + noteDueHours is the earliest moment a note is late). */
async function unsignedNoteItems(
  { tx, tenantId }: UnitOfWork,
  childIds: string[],
  query: BriefingQuery,
  now: Date
): Promise<BriefingItem[]> {
  const sessions = await tx.session.findMany({
    where: {
      tenantId,
      childId: { in: childIds },
      ...(query.locationId ? { locationId: query.locationId } : {}),
      status: { not: 'CANCELLED' },
      scheduledEndsAt: { lt: now },
    },
    select: {
      id: true,
      childId: true,
      status: true,
      attendance: true,
      scheduledEndsAt: true,
      locationId: true,
      notes: { where: { status: 'SIGNED' }, select: { id: true }, take: 1 },
    },
  })
  const locations = await tx.location.findMany({
    where: { tenantId, id: { in: [...new Set(sessions.map((s) => s.locationId))] } },
    select: { id: true, noteDueHours: true },
  })
  const dueHoursOf = new Map(locations.map((l) => [l.id, l.noteDueHours]))
  return sessions.flatMap((s) => {
    const item = unsignedNoteItem(
      {
        sessionId: s.id,
        childId: s.childId,
        scheduledEndsAt: s.scheduledEndsAt,
        noteDueHours: dueHoursOf.get(s.locationId) ?? 48,
        hasSignedNote: s.notes.length > 0,
        cancelled: false,
        absent: s.attendance !== null && ABSENT.has(s.attendance),
      },
      now
    )
    return item ? [item] : []
  })
}

/** Open assessments with a due date, judged against the child's centre calendar day. */
async function assessmentItems(
  { tx, tenantId }: UnitOfWork,
  childIds: string[],
  zoneOf: Map<string, string>,
  now: Date
): Promise<BriefingItem[]> {
  const assessments = await tx.assessment.findMany({
    where: {
      tenantId,
      childId: { in: childIds },
      status: { in: ['SCHEDULED', 'DUE', 'OVERDUE'] },
      dueDate: { not: null },
    },
    select: { id: true, childId: true, instrument: true, dueDate: true },
  })
  return assessments.flatMap((a) => {
    const item = assessmentItem({
      assessmentId: a.id,
      childId: a.childId,
      instrument: a.instrument,
      dueDate: dateOf(a.dueDate)!,
      today: localDateOf(now, zoneOf.get(a.childId) ?? 'UTC'),
    })
    return item ? [item] : []
  })
}

/** Early-intervention deadlines, computed fresh from the enrolment (the stored plan lags until its workflow runs). */
function eiDeadlineItems(children: BriefingChild[], now: Date): BriefingItem[] {
  const items: BriefingItem[] = []
  for (const c of children) {
    if (!c.eiReferralDate) continue
    const today = localDateOf(now, c.zone)
    const plan = planEarlyIntervention(eiFactsOf(c), today, DEFAULT_EI_POLICY)
    if (plan.state !== 'ACTIVE') continue
    for (const d of plan.deadlines) {
      const item = eiDeadlineItem(c.id, d, today)
      if (item) items.push(item)
    }
  }
  return items
}

/** Children with no confirmed appointment ahead. */
async function noUpcomingSessionItems(
  { tx, tenantId }: UnitOfWork,
  childIds: string[],
  now: Date
): Promise<BriefingItem[]> {
  const upcoming = await tx.appointment.groupBy({
    by: ['childId'],
    where: { tenantId, childId: { in: childIds }, status: 'CONFIRMED', startsAt: { gte: now } },
    _min: { startsAt: true },
  })
  const past = await tx.appointment.groupBy({
    by: ['childId'],
    where: { tenantId, childId: { in: childIds }, status: { not: 'CANCELLED' }, startsAt: { lt: now } },
    _max: { startsAt: true },
  })
  const nextOf = new Map(upcoming.map((u) => [u.childId, u._min.startsAt]))
  const lastOf = new Map(past.map((p) => [p.childId, p._max.startsAt]))
  return childIds.flatMap((id) => {
    const item = noUpcomingSessionItem(
      { childId: id, nextAppointmentAt: nextOf.get(id) ?? null, lastAppointmentAt: lastOf.get(id) ?? null },
      now
    )
    return item ? [item] : []
  })
}

/** The briefing's items in order, counted by priority and kind. */
function summarise(items: BriefingItem[]) {
  const ordered = orderBriefing(items)
  const byPriority: Record<Priority, number> = { HIGH: 0, MEDIUM: 0, LOW: 0 }
  const byKind: Record<BriefingKind, number> = {
    UNSIGNED_NOTE: 0,
    OVERDUE_ASSESSMENT: 0,
    ASSESSMENT_DUE_SOON: 0,
    EI_DEADLINE: 0,
    NO_UPCOMING_SESSION: 0,
  }
  for (const i of ordered) {
    byPriority[i.priority] += 1
    byKind[i.kind] += 1
  }
  return { ordered, summary: { total: ordered.length, byPriority, byKind } }
}

/**
 * The briefing as of `now`.
 * @throws AppError `not_found` when the location or child is not the tenant's
 */
export async function careCoordinatorBriefing(uow: UnitOfWork, query: BriefingQuery, now: Date): Promise<Briefing> {
  const { tx, tenantId } = uow
  if (
    query.locationId &&
    !(await tx.location.findFirst({ where: { id: query.locationId, tenantId }, select: { id: true } }))
  ) {
    throw notFound('location', query.locationId)
  }
  if (query.childId && !(await tx.child.findFirst({ where: { id: query.childId, tenantId }, select: { id: true } }))) {
    throw notFound('child', query.childId)
  }
  const childWhere = {
    tenantId,
    archivedAt: null,
    ...(query.childId ? { id: query.childId } : {}),
    ...(query.locationId ? { locationId: query.locationId } : {}),
  }
  const rows = await tx.child.findMany({
    where: childWhere,
    select: {
      id: true,
      ...EI_FACT_COLUMNS,
      location: { select: { timeZone: true } },
    },
    orderBy: { id: 'asc' },
  })
  const children = rows.map((c) => ({ ...c, zone: c.location?.timeZone ?? 'UTC' }))
  const childIds = children.map((c) => c.id)
  const zoneOf = new Map(children.map((c) => [c.id, c.zone]))
  // One statement at a time (one transaction), in this order: sessions, assessments, then appointments.
  const items: BriefingItem[] = [
    ...(await unsignedNoteItems(uow, childIds, query, now)),
    ...(await assessmentItems(uow, childIds, zoneOf, now)),
    ...eiDeadlineItems(children, now),
    ...(await noUpcomingSessionItems(uow, childIds, now)),
  ]
  const { ordered, summary } = summarise(items)
  const scope = query.childId
    ? { kind: 'CHILD' as const, id: query.childId }
    : query.locationId
      ? { kind: 'LOCATION' as const, id: query.locationId }
      : { kind: 'TENANT' as const, id: tenantId }
  return { generatedAt: now.toISOString(), scope, summary, items: ordered }
}
