/**
 * @module Assessment recall (spec row 12): finds the children due or overdue for re-assessment and starts their
 * recall — a re-assessment created through the assessment service (so helper D's reminder workflow runs for it, after
 * commit, through the outbox). Naturally idempotent: a completed assessment has at most one re-assessment (unique
 * previous_assessment_id, created under its row lock), so the same request gives the same recalls and creates nothing
 * the second time (docs/agents.md).
 */
import type { UnitOfWork } from '../../../infra/unit-of-work.ts'
import { localDateOf } from '../../assessments/due-day.ts'
import { addDays } from '../../../common/time/calendar.ts'
import type { AssessmentService } from '../../assessments/assessment-service.ts'
import { notFound } from '../../errors.ts'
import { recallsDue } from './recall-rules.ts'

export interface RecallRequest {
  horizonDays: number
  defaultCadenceDays?: number
  locationId?: string
  childId?: string
}

export interface Recall {
  assessmentId: string
  previousAssessmentId: string
  childId: string
  instrument: string
  dueDate: string
  status: string
  overdue: boolean
  /** True when this request created the re-assessment; false when it was already in recall. */
  started: boolean
}

const OPEN = ['SCHEDULED', 'DUE', 'OVERDUE'] as const
const dateOf = (d: Date) => d.toISOString().slice(0, 10)

/**
 * Runs the recall as of `now` and lists every re-assessment in recall due by today + horizon.
 * @throws AppError `not_found` for a location or child not the tenant's
 */
export async function runAssessmentRecall(
  uow: UnitOfWork,
  assessments: AssessmentService,
  request: RecallRequest,
  now: Date
) {
  const { tx, tenantId } = uow
  if (
    request.locationId &&
    !(await tx.location.findFirst({ where: { id: request.locationId, tenantId }, select: { id: true } }))
  ) {
    throw notFound('location', request.locationId)
  }
  if (
    request.childId &&
    !(await tx.child.findFirst({ where: { id: request.childId, tenantId }, select: { id: true } }))
  ) {
    throw notFound('child', request.childId)
  }
  const children = await tx.child.findMany({
    where: {
      tenantId,
      archivedAt: null,
      ...(request.childId ? { id: request.childId } : {}),
      ...(request.locationId ? { locationId: request.locationId } : {}),
    },
    select: { id: true, location: { select: { timeZone: true } } },
  })
  const zoneOf = new Map(children.map((c) => [c.id, c.location?.timeZone ?? 'UTC']))
  const childIds = [...zoneOf.keys()]
  const rows = await tx.assessment.findMany({
    where: { tenantId, childId: { in: childIds }, status: { in: ['COMPLETED', ...OPEN] } },
    select: {
      id: true,
      childId: true,
      instrument: true,
      status: true,
      completedAt: true,
      reassessmentCadenceDays: true,
      next: { select: { id: true } },
    },
  })
  const open = new Set(
    rows.filter((r) => r.status !== 'COMPLETED').map((r) => `${r.childId}\u0000${r.instrument.toLowerCase()}`)
  )
  // "Today" is one day for the whole request: the tenant's earliest-running zone would differ by at most a day; the
  // child's own zone decides its completion day. UTC keeps the horizon the caller asked for unambiguous.
  const today = localDateOf(now, 'UTC')
  const decisions = recallsDue(
    rows
      .filter((r) => r.status === 'COMPLETED' && r.completedAt)
      .map((r) => ({
        assessmentId: r.id,
        childId: r.childId,
        instrument: r.instrument,
        completedAt: r.completedAt!,
        completedOn: localDateOf(r.completedAt!, zoneOf.get(r.childId) ?? 'UTC'),
        cadenceDays: r.reassessmentCadenceDays,
        hasReassessment: r.next !== null,
        openOfInstrument: open.has(`${r.childId}\u0000${r.instrument.toLowerCase()}`),
      })),
    today,
    request.horizonDays,
    request.defaultCadenceDays
  )
  const started = new Set<string>()
  for (const d of decisions) {
    const result = await assessments.recall(uow, d.assessmentId, d.dueDate, d.cadenceDays)
    if (result.created) started.add(result.assessment.id)
  }

  const limit = addDays(today, request.horizonDays)
  const inRecall = await tx.assessment.findMany({
    where: {
      tenantId,
      childId: { in: childIds },
      status: { in: [...OPEN] },
      previousAssessmentId: { not: null },
      dueDate: { lte: new Date(`${limit}T00:00:00.000Z`) },
    },
    select: { id: true, previousAssessmentId: true, childId: true, instrument: true, dueDate: true, status: true },
    orderBy: [{ dueDate: 'asc' }, { id: 'asc' }],
  })
  const recalls: Recall[] = inRecall.map((a) => ({
    assessmentId: a.id,
    previousAssessmentId: a.previousAssessmentId!,
    childId: a.childId,
    instrument: a.instrument,
    dueDate: dateOf(a.dueDate!),
    status: a.status,
    overdue: dateOf(a.dueDate!) < today,
    started: started.has(a.id),
  }))
  return { asOf: today, horizonDays: request.horizonDays, startedCount: started.size, recalls }
}
