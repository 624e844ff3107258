/**
 * @module What the assessment reminder workflow's activities do, as domain functions in a tenant unit of work:
 * read the assessment's schedule, and record one reminder step — a notification row (no e-mail provider exists yet:
 * the row is the notification, listed by the API), the status change it implies and, on the due day,
 * `assessment.due`. Recording locks the assessment's row, so it cannot interleave with a completion: a step
 * recorded after the assessment was completed or cancelled is refused (CLOSED) rather than announced.
 */
import type { UnitOfWork } from '../../infra/unit-of-work.ts'
import type {
  AssessmentReminderSnapshot,
  NotificationOutcome,
} from '../../common/assessments/assessment-reminder-contract.ts'
import { recordEvent } from '../events/record-event.ts'
import { newId } from '../ids.ts'
import { isOpen, statusAfterStep } from './assessment-rules.ts'
import { localDateOf, startOfLocalDay } from './due-day.ts'
import { stepKey, type ReminderStepKind } from '../../common/assessments/reminder-plan.ts'

/**
 * The zone an assessment's calendar days are counted in: the child's centre, else the provider's zone, else UTC.
 */
export async function timeZoneOfAssessment(
  { tx, tenantId }: UnitOfWork,
  assessment: { childId: string; providerId: string | null }
): Promise<string> {
  const child = await tx.child.findFirst({
    where: { id: assessment.childId, tenantId },
    select: { location: { select: { timeZone: true } } },
  })
  if (child?.location?.timeZone) return child.location.timeZone
  if (assessment.providerId) {
    const provider = await tx.provider.findFirst({
      where: { id: assessment.providerId, tenantId },
      select: { timeZone: true },
    })
    if (provider) return provider.timeZone
  }
  return 'UTC'
}

/** A stored calendar date as YYYY-MM-DD. */
export const calendarDateOf = (date: Date) => date.toISOString().slice(0, 10)

/**
 * The assessment as the reminder workflow needs it: status, due date and the real time until the due day begins.
 * @param now - the activity's clock
 */
export async function loadReminderSnapshot(
  uow: UnitOfWork,
  assessmentId: string,
  now: Date
): Promise<AssessmentReminderSnapshot> {
  const assessment = await uow.tx.assessment.findFirst({ where: { id: assessmentId, tenantId: uow.tenantId } })
  if (!assessment) return { status: 'MISSING', dueDate: null, msUntilDue: null }
  if (!assessment.dueDate) return { status: assessment.status, dueDate: null, msUntilDue: null }
  const dueDate = calendarDateOf(assessment.dueDate)
  const timeZone = await timeZoneOfAssessment(uow, assessment)
  return {
    status: assessment.status,
    dueDate,
    msUntilDue: startOfLocalDay(dueDate, timeZone).getTime() - now.getTime(),
  }
}

export interface ReminderStepInput {
  assessmentId: string
  /** The due date the workflow planned the step for; a step for a date that has since moved is STALE. */
  dueDate: string
  kind: ReminderStepKind
  daysFromDue: number
}

/**
 * Records one reminder step, once (the notification's dedupe key makes an activity retry a no-op).
 * @returns RECORDED; DUPLICATE when it was already recorded; STALE when the due date moved; CLOSED when the
 *   assessment is completed, cancelled or gone
 */
export async function recordReminderStep(
  uow: UnitOfWork,
  input: ReminderStepInput,
  now: Date
): Promise<NotificationOutcome> {
  const { tx, tenantId } = uow
  await tx.$queryRaw`SELECT id FROM assessments WHERE id = ${input.assessmentId} AND tenant_id = ${tenantId} FOR UPDATE`
  const assessment = await tx.assessment.findFirst({ where: { id: input.assessmentId, tenantId } })
  if (!assessment || !isOpen(assessment.status)) return 'CLOSED'
  if (!assessment.dueDate || calendarDateOf(assessment.dueDate) !== input.dueDate) return 'STALE'

  const { count } = await tx.assessmentNotification.createMany({
    data: [
      {
        id: newId('assessmentNotification'),
        tenantId,
        assessmentId: assessment.id,
        kind: input.kind,
        dueDate: assessment.dueDate,
        daysFromDue: input.daysFromDue,
        recipientProviderId: assessment.providerId,
        dedupeKey: `${assessment.id}:${stepKey(input.dueDate, input)}`,
        createdAt: now,
      },
    ],
    skipDuplicates: true,
  })
  if (count === 0) return 'DUPLICATE'

  const status = statusAfterStep(assessment.status, input.kind)
  if (status !== assessment.status) await tx.assessment.update({ where: { id: assessment.id }, data: { status } })
  if (input.kind === 'DUE') {
    await recordEvent(
      uow,
      'assessment.due',
      {
        assessmentId: assessment.id,
        childId: assessment.childId,
        providerId: assessment.providerId,
        instrument: assessment.instrument,
        dueDate: input.dueDate,
      },
      { createdAt: now }
    )
  }
  return 'RECORDED'
}

/** Today's date in the assessment's zone (used when a completion schedules the re-assessment). */
export async function localDateForAssessment(
  uow: UnitOfWork,
  assessment: { childId: string; providerId: string | null },
  instant: Date
): Promise<string> {
  return localDateOf(instant, await timeZoneOfAssessment(uow, assessment))
}
