/**
 * @module The record-keeping recommendations of one child: notes to sign, assessments to complete, re-assessments to
 * schedule, early-intervention deadlines to meet. They reuse the care-coordinator's note, assessment and
 * early-intervention rules and the recall rule, so a recommendation never disagrees with the briefing or the recall.
 */
import { assessmentItem, eiDeadlineItem, unsignedNoteItem } from '../briefings/briefing-rules.ts'
import type { Deadline } from '../../../common/early-intervention/ei-plan.ts'
import { recallsDue } from '../assessment-recall/recall-rules.ts'
import {
  childPath as child,
  RECOMMENDATION_RULES,
  RULES,
  type ChildRecommendationFacts,
} from './recommendation-facts.ts'
import type { Recommendation } from './recommendation-types.ts'

export function signNotes(f: ChildRecommendationFacts, now: Date): Recommendation[] {
  return f.sessions.flatMap((s) => {
    const item = unsignedNoteItem(s, now)
    if (!item) return []
    const sign = s.draftNoteId
      ? {
          method: 'POST' as const,
          path: `/v1/sessions/${s.sessionId}/notes/${s.draftNoteId}/sign`,
          description: 'Sign the draft note',
        }
      : {
          method: 'POST' as const,
          path: `/v1/sessions/${s.sessionId}/notes`,
          description: 'Write the note (then sign it)',
        }
    return [
      {
        id: `SIGN_NOTE:${s.sessionId}`,
        kind: 'SIGN_NOTE' as const,
        priority: item.priority,
        title: s.draftNoteId
          ? 'Sign the draft SOAP note of this session'
          : 'Write and sign the SOAP note of this session',
        explanation: {
          rule: RULES.SIGN_NOTE,
          reason: item.reason,
          facts: [
            { name: 'sessionEndedAt', value: s.scheduledEndsAt.toISOString(), source: `/v1/sessions/${s.sessionId}` },
            { name: 'noteDueHours', value: s.noteDueHours },
            { name: 'noteDueAt', value: item.dueAt },
            {
              name: 'draftNoteId',
              value: s.draftNoteId,
              ...(s.draftNoteId ? { source: `/v1/sessions/${s.sessionId}/notes/${s.draftNoteId}` } : {}),
            },
          ],
        },
        links: item.links,
        suggestedCall: { ...sign, scope: 'sessions' },
        dueAt: item.dueAt,
      },
    ]
  })
}

export function completeAssessments(f: ChildRecommendationFacts): Recommendation[] {
  return f.openAssessments.flatMap((a) => {
    const item = assessmentItem(a)
    if (!item) return []
    return [
      {
        id: `COMPLETE_ASSESSMENT:${a.assessmentId}`,
        kind: 'COMPLETE_ASSESSMENT' as const,
        priority: item.priority === 'HIGH' ? ('HIGH' as const) : ('MEDIUM' as const),
        title: `Complete the ${a.instrument} assessment`,
        explanation: {
          rule: RULES.COMPLETE_ASSESSMENT,
          reason: item.reason,
          facts: [
            { name: 'instrument', value: a.instrument, source: `/v1/assessments/${a.assessmentId}` },
            { name: 'dueDate', value: a.dueDate, source: `/v1/assessments/${a.assessmentId}` },
            { name: 'today', value: a.today },
          ],
        },
        links: item.links,
        suggestedCall: {
          method: 'POST' as const,
          path: `/v1/assessments/${a.assessmentId}/complete`,
          scope: 'assessments',
          description: 'Record the scores',
        },
        dueAt: a.dueDate,
      },
    ]
  })
}

export function scheduleReassessments(f: ChildRecommendationFacts): Recommendation[] {
  return recallsDue(
    f.completedAssessments,
    f.today,
    RECOMMENDATION_RULES.reassessmentHorizonDays,
    f.defaultCadenceDays
  ).map((r) => {
    const completed = f.completedAssessments.find((c) => c.assessmentId === r.assessmentId)!
    return {
      id: `SCHEDULE_REASSESSMENT:${r.assessmentId}`,
      kind: 'SCHEDULE_REASSESSMENT' as const,
      priority: r.overdue ? ('HIGH' as const) : ('MEDIUM' as const),
      title: `Schedule the ${r.instrument} re-assessment`,
      explanation: {
        rule: RULES.SCHEDULE_REASSESSMENT,
        reason: `The ${r.instrument} assessment completed ${completed.completedOn} has a ${r.cadenceDays}-day cadence${completed.cadenceDays === null ? ' (the default)' : ''}, so the re-assessment is due ${r.dueDate}${r.overdue ? ' (overdue)' : ''}, and none is open.`,
        facts: [
          { name: 'completedOn', value: completed.completedOn, source: `/v1/assessments/${r.assessmentId}` },
          {
            name: 'cadenceDays',
            value: r.cadenceDays,
            ...(completed.cadenceDays === null ? {} : { source: `/v1/assessments/${r.assessmentId}` }),
          },
          { name: 'defaultCadenceUsed', value: completed.cadenceDays === null },
          { name: 'dueDate', value: r.dueDate },
          { name: 'today', value: f.today },
        ],
      },
      links: { assessment: `/v1/assessments/${r.assessmentId}`, child: child(f.childId) },
      suggestedCall: {
        method: 'POST' as const,
        path: '/v1/ai/assessment-recall',
        scope: 'assessments',
        body: {
          childId: f.childId,
          horizonDays: RECOMMENDATION_RULES.reassessmentHorizonDays,
          defaultCadenceDays: f.defaultCadenceDays,
        },
        description: 'Create the re-assessment and start its reminders (idempotent)',
      },
      dueAt: r.dueDate,
    }
  })
}

/** The child record's field that records meeting each deadline. */
const EI_FIELD: Partial<Record<Deadline['kind'], string>> = {
  INITIAL_IFSP: 'initialIfspDate',
  PERIODIC_REVIEW: 'lastIfspReviewDate',
  ANNUAL_MEETING: 'lastIfspReviewDate',
  EXIT: 'exitDate',
}

export function eiDeadlines(f: ChildRecommendationFacts): Recommendation[] {
  return f.eiDeadlines.flatMap((d) => {
    const item = eiDeadlineItem(f.childId, d, f.today)
    if (!item) return []
    const field = EI_FIELD[d.kind]
    return [
      {
        id: `EI_DEADLINE:${f.childId}:${d.kind}:${d.dueDate}`,
        kind: 'EI_DEADLINE' as const,
        priority: item.priority,
        title: `Meet the early-intervention ${d.kind} deadline`,
        explanation: {
          rule: RULES.EI_DEADLINE,
          reason: item.reason,
          facts: [
            { name: 'deadline', value: d.kind, source: `${child(f.childId)}/early-intervention` },
            { name: 'dueDate', value: d.dueDate },
            { name: 'status', value: d.status },
            { name: 'today', value: f.today },
          ],
        },
        links: item.links,
        suggestedCall: field
          ? {
              method: 'PATCH' as const,
              path: child(f.childId),
              scope: 'children',
              body: { earlyIntervention: { [field]: '<date held>' } },
              description: `Record the date the ${d.kind} was held`,
            }
          : {
              method: 'GET' as const,
              path: `${child(f.childId)}/early-intervention`,
              scope: 'children.read',
              description: 'Review the plan and its deadlines',
            },
        dueAt: d.dueDate,
      },
    ]
  })
}
