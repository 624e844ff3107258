/**
 * @module The therapy-plan recommendations of one child: goals to review (by the progress trend the insights use),
 * the next session to book, therapists to offer for a discipline not delivered yet.
 */
import { childPath as child, RULES, type ChildRecommendationFacts } from './recommendation-facts.ts'
import type { Recommendation } from './recommendation-types.ts'

export function adjustGoals(f: ChildRecommendationFacts): Recommendation[] {
  const active = new Set(f.goals.filter((g) => g.status === 'ACTIVE').map((g) => g.id))
  return f.goalInsights.flatMap((g) => {
    const trend = g.progress.trend
    if (!active.has(g.goalId) || (trend !== 'STALLED' && trend !== 'DECLINING')) return []
    const last = g.dataPoints.slice(-3)
    return [
      {
        id: `ADJUST_GOAL:${f.childId}:${g.goalId}`,
        kind: 'ADJUST_GOAL' as const,
        priority: trend === 'DECLINING' ? ('HIGH' as const) : ('MEDIUM' as const),
        title: `Review goal ${g.goalId}: progress is ${trend.toLowerCase()}`,
        explanation: {
          rule: RULES.ADJUST_GOAL,
          reason: g.explanation,
          facts: [
            { name: 'trend', value: trend, source: `/v1/ai/children/${f.childId}/insights` },
            { name: 'trendChange', value: g.progress.trendChange },
            { name: 'dataPoints', value: g.progress.dataPoints },
            ...last.map((p) => ({
              name: 'accuracyPercent',
              value: p.accuracyPercent,
              source: `/v1/sessions/${p.sessionId}/notes/${p.noteId}`,
            })),
          ],
        },
        links: { insights: `/v1/ai/children/${f.childId}/insights`, child: child(f.childId) },
        suggestedCall: {
          method: 'PATCH' as const,
          path: child(f.childId),
          scope: 'children',
          body: { goals: '<the goals, with this one revised or put ON_HOLD>' },
          description: 'Revise the goal (target, cueing, or status); goals are replaced whole by a PATCH',
        },
        dueAt: null,
      },
    ]
  })
}

export function bookNextSession(f: ChildRecommendationFacts): Recommendation[] {
  const active = f.goals.filter((g) => g.status === 'ACTIVE')
  if (active.length === 0 || f.nextAppointment) return []
  const last = f.lastAppointment
  return [
    {
      id: `BOOK_NEXT_SESSION:${f.childId}`,
      kind: 'BOOK_NEXT_SESSION',
      priority: 'MEDIUM',
      title: 'Book the next session',
      explanation: {
        rule: RULES.BOOK_NEXT_SESSION,
        reason: last
          ? `${active.length} active goal(s) and no confirmed appointment after the last one on ${last.startsAt}.`
          : `${active.length} active goal(s) and no appointment has ever been booked.`,
        facts: [
          ...active.map((g) => ({ name: 'activeGoalId', value: g.id, source: child(f.childId) })),
          {
            name: 'lastAppointmentId',
            value: last?.appointmentId ?? null,
            ...(last ? { source: `/v1/appointments/${last.appointmentId}` } : {}),
          },
          { name: 'nextAppointmentId', value: null },
        ],
      },
      links: {
        child: child(f.childId),
        ...(last ? { lastAppointment: `/v1/appointments/${last.appointmentId}` } : {}),
      },
      suggestedCall: {
        method: 'POST',
        path: '/v1/appointments',
        scope: 'bookings',
        body: { childId: f.childId, ...(last ? { providerId: last.providerId } : {}), startsAt: '<a free slot>' },
        description: last
          ? 'Book with the same provider (continuity); find a slot with GET /v1/availability'
          : 'Book a first session',
      },
      dueAt: null,
    },
  ]
}

export function offerTherapists(f: ChildRecommendationFacts): Recommendation[] {
  const needed = new Map<string, string[]>()
  for (const g of f.goals) {
    if (g.status !== 'ACTIVE' || !g.discipline || f.disciplinesDelivered[g.discipline]) continue
    needed.set(g.discipline, [...(needed.get(g.discipline) ?? []), g.id])
  }
  return [...needed.entries()].map(([discipline, goalIds]) => ({
    id: `OFFER_THERAPISTS:${f.childId}:${discipline}`,
    kind: 'OFFER_THERAPISTS' as const,
    priority: 'MEDIUM' as const,
    title: `Offer the family a ${discipline} therapist`,
    explanation: {
      rule: RULES.OFFER_THERAPISTS,
      reason: `Goal(s) ${goalIds.join(', ')} need ${discipline} and none of the child's appointments delivered ${discipline}.`,
      facts: [
        { name: 'discipline', value: discipline },
        ...goalIds.map((id) => ({ name: 'activeGoalId', value: id, source: child(f.childId) })),
        { name: 'disciplinesDelivered', value: Object.keys(f.disciplinesDelivered).sort().join(',') },
      ],
    },
    links: { child: child(f.childId), match: '/v1/therapists/match' },
    suggestedCall: {
      method: 'POST' as const,
      path: '/v1/therapists/match',
      scope: 'matching',
      body: { childId: f.childId, discipline },
      description: 'Ranked therapists of the discipline, each score explained',
    },
    dueAt: null,
  }))
}
