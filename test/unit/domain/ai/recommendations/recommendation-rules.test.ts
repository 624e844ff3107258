import { describe, expect, it } from 'vitest'
import { childInsights, type InsightNote } from '../../../../../domain/ai/insights/insight-rules.ts'
import { DEFAULT_PROGRESS_POLICY } from '../../../../../common/child-progress/progress-rules.ts'
import { RULES, type ChildRecommendationFacts } from '../../../../../domain/ai/recommendations/recommendation-facts.ts'
import {
  orderRecommendations,
  recommendForChild,
} from '../../../../../domain/ai/recommendations/recommendation-rules.ts'
import type { Recommendation } from '../../../../../domain/ai/recommendations/recommendation-types.ts'

const now = new Date('2026-11-21T12:00:00Z')
const today = '2026-11-21'

/** A child with nothing to do: an active goal delivered by its discipline and an appointment ahead. */
const quiet = (over: Partial<ChildRecommendationFacts> = {}): ChildRecommendationFacts => ({
  childId: 'chd_1',
  today,
  goals: [{ id: 'g1', description: 'Produce /s/ in words', status: 'ACTIVE', discipline: 'SPEECH_THERAPY' }],
  sessions: [],
  openAssessments: [],
  completedAssessments: [],
  eiDeadlines: [],
  goalInsights: [],
  nextAppointment: {
    appointmentId: 'apt_next',
    startsAt: '2026-11-25T15:00:00.000Z',
    providerId: 'prv_1',
    discipline: 'SPEECH_THERAPY',
  },
  lastAppointment: {
    appointmentId: 'apt_last',
    startsAt: '2026-11-18T15:00:00.000Z',
    providerId: 'prv_1',
    discipline: 'SPEECH_THERAPY',
  },
  disciplinesDelivered: { SPEECH_THERAPY: 'apt_last' },
  defaultCadenceDays: 180,
  ...over,
})

const notes = (accuracies: number[]): InsightNote[] =>
  accuracies.map((a, i) => ({
    noteId: `nte_${i}`,
    sessionId: `ses_${i}`,
    sessionAt: `2026-11-0${i + 1}T15:00:00.000Z`,
    goals: [{ goalId: 'g1', accuracyPercent: a }],
  }))

const insights = (accuracies: number[], goals = quiet().goals) =>
  childInsights(goals, notes(accuracies), [], DEFAULT_PROGRESS_POLICY).goals

const ids = (list: Recommendation[]) => list.map((r) => r.id)

describe('recommendForChild', () => {
  it('recommends nothing when no rule applies', () => {
    expect(recommendForChild(quiet(), now)).toEqual([])
  })

  it('signs a late note: sign the draft when there is one, else write it', () => {
    const late = {
      childId: 'chd_1',
      scheduledEndsAt: new Date('2026-11-18T12:00:00Z'),
      noteDueHours: 48,
      hasSignedNote: false,
      cancelled: false,
      absent: false,
    }
    const list = recommendForChild(
      quiet({
        sessions: [
          { ...late, sessionId: 'ses_a', draftNoteId: 'nte_a' },
          { ...late, sessionId: 'ses_b', draftNoteId: null },
          { ...late, sessionId: 'ses_c', draftNoteId: null, hasSignedNote: true },
          { ...late, sessionId: 'ses_d', draftNoteId: null, absent: true },
        ],
      }),
      now
    )
    expect(ids(list)).toEqual(['SIGN_NOTE:ses_a', 'SIGN_NOTE:ses_b'])
    // Ended 72 h ago, due 48 h after: 24 h late, under the 72 h HIGH threshold.
    expect(list[0]).toMatchObject({
      priority: 'MEDIUM',
      suggestedCall: { method: 'POST', path: '/v1/sessions/ses_a/notes/nte_a/sign', scope: 'sessions' },
      explanation: {
        rule: RULES.SIGN_NOTE,
        facts: expect.arrayContaining([{ name: 'noteDueAt', value: '2026-11-20T12:00:00.000Z' }]),
      },
      dueAt: '2026-11-20T12:00:00.000Z',
    })
    expect(list[1]!.suggestedCall.path).toBe('/v1/sessions/ses_b/notes')
  })

  it('completes an overdue assessment (HIGH) and one due within 7 days (MEDIUM), not one further out', () => {
    const a = (assessmentId: string, dueDate: string) => ({
      assessmentId,
      childId: 'chd_1',
      instrument: 'PLS-5',
      dueDate,
      today,
    })
    const list = recommendForChild(
      quiet({
        openAssessments: [a('asm_late', '2026-11-20'), a('asm_soon', '2026-11-28'), a('asm_far', '2026-11-29')],
      }),
      now
    )
    expect(list.map((r) => [r.id, r.priority])).toEqual([
      ['COMPLETE_ASSESSMENT:asm_late', 'HIGH'],
      ['COMPLETE_ASSESSMENT:asm_soon', 'MEDIUM'],
    ])
    expect(list[0]!.suggestedCall.path).toBe('/v1/assessments/asm_late/complete')
  })

  it('schedules a re-assessment from the cadence, within 14 days, unless one is open or it is already recalled', () => {
    const done = (assessmentId: string, instrument: string, completedOn: string, over = {}) => ({
      assessmentId,
      childId: 'chd_1',
      instrument,
      completedOn,
      completedAt: new Date(`${completedOn}T15:00:00Z`),
      cadenceDays: 180,
      hasReassessment: false,
      openOfInstrument: false,
      ...over,
    })
    const list = recommendForChild(
      quiet({
        completedAssessments: [
          done('asm_overdue', 'PLS-5', '2026-05-01'), // due 2026-10-28: overdue
          done('asm_soon', 'CELF-5', '2026-05-30'), // due 2026-11-26: within 14 days
          done('asm_far', 'GFTA-3', '2026-06-20'), // due 2026-12-17: beyond
          done('asm_open', 'REEL-4', '2026-01-01', { openOfInstrument: true }),
          done('asm_recalled', 'PPVT-5', '2026-01-01', { hasReassessment: true }),
          done('asm_none', 'BOT-2', '2026-05-20', { cadenceDays: null }), // the default 180: due 2026-11-16, overdue
          done('asm_short', 'BDI-3', '2026-10-01', { cadenceDays: null }), // the default 180: due 2027-03-30
        ],
      }),
      now
    )
    expect(list.map((r) => [r.id, r.priority, r.dueAt])).toEqual([
      ['SCHEDULE_REASSESSMENT:asm_none', 'HIGH', '2026-11-16'],
      ['SCHEDULE_REASSESSMENT:asm_overdue', 'HIGH', '2026-10-28'],
      ['SCHEDULE_REASSESSMENT:asm_soon', 'MEDIUM', '2026-11-26'],
    ])
    expect(list[0]!.explanation.reason).toMatch(/has a 180-day cadence \(the default\)/)
    expect(list[1]!.suggestedCall).toMatchObject({
      method: 'POST',
      path: '/v1/ai/assessment-recall',
      body: { childId: 'chd_1', horizonDays: 14, defaultCadenceDays: 180 },
    })
    expect(list[1]!.explanation.reason).toBe(
      'The PLS-5 assessment completed 2026-05-01 has a 180-day cadence, so the re-assessment is due 2026-10-28 (overdue), and none is open.'
    )
  })

  it('raises early-intervention deadlines: overdue HIGH, open within 30 days MEDIUM, later ones not', () => {
    const list = recommendForChild(
      quiet({
        eiDeadlines: [
          { kind: 'INITIAL_IFSP', dueDate: '2026-11-10', status: 'OVERDUE' },
          { kind: 'PERIODIC_REVIEW', dueDate: '2026-12-10', status: 'OPEN' },
          { kind: 'ANNUAL_MEETING', dueDate: '2027-05-10', status: 'OPEN' },
        ],
      }),
      now
    )
    expect(list.map((r) => [r.kind, r.priority, r.dueAt])).toEqual([
      ['EI_DEADLINE', 'HIGH', '2026-11-10'],
      ['EI_DEADLINE', 'MEDIUM', '2026-12-10'],
    ])
    expect(list[0]!.suggestedCall).toMatchObject({
      method: 'PATCH',
      path: '/v1/children/chd_1',
      body: { earlyIntervention: { initialIfspDate: '<date held>' } },
    })
  })

  it('reviews an active goal whose trend is stalled (MEDIUM) or declining (HIGH), citing the notes', () => {
    const stalled = recommendForChild(quiet({ goalInsights: insights([50, 52, 50, 51]) }), now)
    expect(ids(stalled)).toEqual(['ADJUST_GOAL:chd_1:g1'])
    expect(stalled[0]!.priority).toBe('MEDIUM')
    expect(stalled[0]!.explanation.reason).toMatch(/^Stalled: /)
    expect(stalled[0]!.explanation.facts).toContainEqual({
      name: 'accuracyPercent',
      value: 51,
      source: '/v1/sessions/ses_3/notes/nte_3',
    })

    expect(recommendForChild(quiet({ goalInsights: insights([70, 60, 50, 40]) }), now)[0]).toMatchObject({
      priority: 'HIGH',
      title: 'Review goal g1: progress is declining',
    })
    expect(recommendForChild(quiet({ goalInsights: insights([40, 50, 60, 70]) }), now)).toEqual([])
    expect(recommendForChild(quiet({ goalInsights: insights([50, 50]) }), now)).toEqual([])
    // A goal no longer active is not reviewed, however it went.
    const onHold = [{ id: 'g1', description: 'x', status: 'ON_HOLD', discipline: 'SPEECH_THERAPY' }]
    expect(
      ids(recommendForChild(quiet({ goals: onHold, goalInsights: insights([70, 60, 50, 40], onHold) }), now))
    ).toEqual([])
  })

  it('books the next session with the last provider when goals are active and nothing is booked', () => {
    const list = recommendForChild(quiet({ nextAppointment: null }), now)
    expect(ids(list)).toEqual(['BOOK_NEXT_SESSION:chd_1'])
    expect(list[0]!.suggestedCall).toMatchObject({
      method: 'POST',
      path: '/v1/appointments',
      scope: 'bookings',
      body: { childId: 'chd_1', providerId: 'prv_1' },
    })
    expect(list[0]!.explanation.reason).toBe(
      '1 active goal(s) and no confirmed appointment after the last one on 2026-11-18T15:00:00.000Z.'
    )
    // No active goal: nothing to book for.
    expect(
      recommendForChild(
        quiet({ nextAppointment: null, goals: [{ id: 'g1', description: 'x', status: 'MET', discipline: null }] }),
        now
      )
    ).toEqual([])
  })

  it('offers therapists once per needed discipline no appointment delivered', () => {
    const goals = [
      { id: 'g1', description: 'a', status: 'ACTIVE', discipline: 'SPEECH_THERAPY' },
      { id: 'g2', description: 'b', status: 'ACTIVE', discipline: 'OCCUPATIONAL_THERAPY' },
      { id: 'g3', description: 'c', status: 'ACTIVE', discipline: 'OCCUPATIONAL_THERAPY' },
      { id: 'g4', description: 'd', status: 'MET', discipline: 'PHYSICAL_THERAPY' },
    ]
    const list = recommendForChild(quiet({ goals }), now)
    expect(ids(list)).toEqual(['OFFER_THERAPISTS:chd_1:OCCUPATIONAL_THERAPY'])
    expect(list[0]).toMatchObject({
      suggestedCall: {
        method: 'POST',
        path: '/v1/therapists/match',
        scope: 'matching',
        body: { childId: 'chd_1', discipline: 'OCCUPATIONAL_THERAPY' },
      },
      explanation: {
        reason:
          "Goal(s) g2, g3 need OCCUPATIONAL_THERAPY and none of the child's appointments delivered OCCUPATIONAL_THERAPY.",
      },
    })
  })

  it('orders HIGH before MEDIUM, then by kind, then by id', () => {
    const r = (id: string, kind: Recommendation['kind'], priority: Recommendation['priority']) =>
      ({ id, kind, priority }) as Recommendation
    const ordered = orderRecommendations([
      r('OFFER_THERAPISTS:x', 'OFFER_THERAPISTS', 'MEDIUM'),
      r('SIGN_NOTE:b', 'SIGN_NOTE', 'MEDIUM'),
      r('SIGN_NOTE:a', 'SIGN_NOTE', 'MEDIUM'),
      r('COMPLETE_ASSESSMENT:z', 'COMPLETE_ASSESSMENT', 'HIGH'),
      r('EI_DEADLINE:y', 'EI_DEADLINE', 'HIGH'),
    ])
    expect(ids(ordered)).toEqual([
      'EI_DEADLINE:y',
      'COMPLETE_ASSESSMENT:z',
      'SIGN_NOTE:a',
      'SIGN_NOTE:b',
      'OFFER_THERAPISTS:x',
    ])
  })
})
