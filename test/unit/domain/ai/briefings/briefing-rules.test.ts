import { describe, expect, it } from 'vitest'
import {
  assessmentItem,
  eiDeadlineItem,
  noUpcomingSessionItem,
  orderBriefing,
  unsignedNoteItem,
  type SessionFact,
} from '../../../../../domain/ai/briefings/briefing-rules.ts'

const now = new Date('2026-11-21T12:00:00Z')
const session = (over: Partial<SessionFact> = {}): SessionFact => ({
  sessionId: 'ses_1',
  childId: 'chd_1',
  scheduledEndsAt: new Date('2026-11-18T12:00:00Z'),
  noteDueHours: 48,
  hasSignedNote: false,
  cancelled: false,
  absent: false,
  ...over,
})

describe('unsigned notes', () => {
  it('raises a note due end + noteDueHours, MEDIUM under 72 h late, with links', () => {
    const item = unsignedNoteItem(session(), now)!
    expect(item).toMatchObject({
      kind: 'UNSIGNED_NOTE',
      priority: 'MEDIUM',
      dueAt: '2026-11-20T12:00:00.000Z',
      childId: 'chd_1',
    })
    expect(item.reason).toContain('24 h ago')
    expect(item.links).toEqual({
      session: '/v1/sessions/ses_1',
      notes: '/v1/sessions/ses_1/notes',
      child: '/v1/children/chd_1',
    })
  })
  it('is HIGH from 72 h past due', () => {
    expect(unsignedNoteItem(session({ scheduledEndsAt: new Date('2026-11-16T12:00:00Z') }), now)!.priority).toBe('HIGH')
  })
  it('is silent before the due time, once signed, and for cancelled or absent sessions', () => {
    expect(unsignedNoteItem(session({ noteDueHours: 96 }), now)).toBeUndefined()
    expect(unsignedNoteItem(session({ hasSignedNote: true }), now)).toBeUndefined()
    expect(unsignedNoteItem(session({ cancelled: true }), now)).toBeUndefined()
    expect(unsignedNoteItem(session({ absent: true }), now)).toBeUndefined()
  })
})

describe('assessments', () => {
  const a = { assessmentId: 'asm_1', childId: 'chd_1', instrument: 'PLS-5', today: '2026-11-21' }
  it('overdue the day after the due date (HIGH), due soon within 7 days (LOW), nothing further out', () => {
    expect(assessmentItem({ ...a, dueDate: '2026-11-20' })).toMatchObject({
      kind: 'OVERDUE_ASSESSMENT',
      priority: 'HIGH',
    })
    expect(assessmentItem({ ...a, dueDate: '2026-11-21' })).toMatchObject({
      kind: 'ASSESSMENT_DUE_SOON',
      priority: 'LOW',
    })
    expect(assessmentItem({ ...a, dueDate: '2026-11-28' })).toMatchObject({ kind: 'ASSESSMENT_DUE_SOON' })
    expect(assessmentItem({ ...a, dueDate: '2026-11-29' })).toBeUndefined()
  })
})

describe('early-intervention deadlines', () => {
  it('overdue is HIGH, open within 30 days MEDIUM, met or far ones nothing', () => {
    expect(
      eiDeadlineItem('chd_1', { kind: 'INITIAL_IFSP', dueDate: '2026-11-01', status: 'OVERDUE' }, '2026-11-21')!
        .priority
    ).toBe('HIGH')
    expect(
      eiDeadlineItem('chd_1', { kind: 'PERIODIC_REVIEW', dueDate: '2026-12-21', status: 'OPEN' }, '2026-11-21')!
        .priority
    ).toBe('MEDIUM')
    expect(
      eiDeadlineItem('chd_1', { kind: 'PERIODIC_REVIEW', dueDate: '2026-12-22', status: 'OPEN' }, '2026-11-21')
    ).toBeUndefined()
    expect(
      eiDeadlineItem(
        'chd_1',
        { kind: 'INITIAL_IFSP', dueDate: '2026-11-01', status: 'MET', metOn: '2026-10-30' },
        '2026-11-21'
      )
    ).toBeUndefined()
  })
})

describe('scheduling and order', () => {
  it('a child with nothing ahead is LOW; one with an appointment ahead is not listed', () => {
    expect(
      noUpcomingSessionItem({ childId: 'chd_1', nextAppointmentAt: null, lastAppointmentAt: null }, now)!.reason
    ).toContain('never')
    expect(
      noUpcomingSessionItem({ childId: 'chd_1', nextAppointmentAt: now, lastAppointmentAt: null }, now)
    ).toBeUndefined()
  })
  it('orders by priority, then due, then id', () => {
    const low = noUpcomingSessionItem({ childId: 'chd_2', nextAppointmentAt: null, lastAppointmentAt: null }, now)!
    const medium = unsignedNoteItem(session(), now)!
    const highLater = assessmentItem({
      assessmentId: 'asm_2',
      childId: 'chd_1',
      instrument: 'X',
      dueDate: '2026-11-20',
      today: '2026-11-21',
    })!
    const highEarlier = assessmentItem({
      assessmentId: 'asm_1',
      childId: 'chd_1',
      instrument: 'X',
      dueDate: '2026-11-10',
      today: '2026-11-21',
    })!
    expect(orderBriefing([low, medium, highLater, highEarlier]).map((i) => i.id)).toEqual([
      highEarlier.id,
      highLater.id,
      medium.id,
      low.id,
    ])
  })
})
