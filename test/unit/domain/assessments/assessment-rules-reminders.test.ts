import { describe, expect, it } from 'vitest'
import { statusAfterStep } from '../../../../domain/assessments/assessment-rules.ts'
import { AssessmentCompletion } from '../../../../domain/assessments/assessment-schema.ts'
import { addDays } from '../../../../common/time/calendar.ts'
import { localDateOf, startOfLocalDay } from '../../../../domain/assessments/due-day.ts'
import {
  DEFAULT_REMINDER_TIMING,
  planReminderSteps,
  selectDueSteps,
  toWorkflowMs,
} from '../../../../common/assessments/reminder-plan.ts'

const DAY = 86_400_000
const timing = { ...DEFAULT_REMINDER_TIMING, maxEscalations: 3 }
const summary = (steps: ReturnType<typeof planReminderSteps>, dueAt: number) =>
  steps.map((s) => `${s.kind}${s.daysFromDue}@${(s.at - dueAt) / DAY}`)

describe('reminder plan', () => {
  const dueAt = Date.parse('2026-12-15T06:00:00Z')

  it('reminds 7 and 1 days before, announces on the day, escalates the day after and then weekly', () => {
    const steps = planReminderSteps(dueAt, dueAt - 30 * DAY, timing)
    expect(summary(steps, dueAt)).toEqual([
      'REMINDER-7@-7',
      'REMINDER-1@-1',
      'DUE0@0',
      'ESCALATION1@1',
      'ESCALATION8@8',
      'ESCALATION15@15',
    ])
  })

  it('drops reminders whose moment has passed', () => {
    expect(summary(planReminderSteps(dueAt, dueAt - 3 * DAY, timing), dueAt)).toEqual([
      'REMINDER-1@-1',
      'DUE0@0',
      'ESCALATION1@1',
      'ESCALATION8@8',
      'ESCALATION15@15',
    ])
  })

  it('catches up a late start with the due notice and only the latest past escalation', () => {
    expect(summary(planReminderSteps(dueAt, dueAt + 10 * DAY, timing), dueAt)).toEqual([
      'DUE0@0',
      'ESCALATION8@8',
      'ESCALATION15@15',
    ])
    expect(summary(planReminderSteps(dueAt, dueAt + 100 * DAY, timing), dueAt)).toEqual(['DUE0@0', 'ESCALATION15@15'])
  })

  it('runs in shortened days when the timing says so', () => {
    const fast = { ...timing, dayMs: 500 }
    expect(toWorkflowMs(2 * DAY, fast)).toBe(1000)
    const steps = planReminderSteps(1000, 0, fast)
    expect(steps.map((s) => s.at)).toEqual([500, 1000, 1500, 5000, 8500])
  })
})

describe('steps that come due together', () => {
  const dueAt = Date.parse('2026-12-15T06:00:00Z')
  const steps = planReminderSteps(dueAt, dueAt - 30 * DAY, timing)
  const names = (list: typeof steps) => list.map((s) => `${s.kind}${s.daysFromDue}`)

  it('acts on the one step due in normal operation, and on nothing before its moment', () => {
    expect(names(selectDueSteps(steps, dueAt - 7 * DAY).act)).toEqual(['REMINDER-7'])
    expect(names(selectDueSteps(steps.slice(1), dueAt - 1 * DAY).act)).toEqual(['REMINDER-1'])
    expect(selectDueSteps(steps.slice(2), dueAt - 1).act).toEqual([])
  })

  it('after a long outage sends the reminders and the due notice late, and only the latest escalation', () => {
    const { act, skip } = selectDueSteps(steps, dueAt + 16 * DAY)
    expect(names(act)).toEqual(['REMINDER-7', 'REMINDER-1', 'DUE0', 'ESCALATION15'])
    expect(names(skip)).toEqual(['ESCALATION1', 'ESCALATION8'])
  })
})

describe('assessment status after a reminder step', () => {
  it('moves an open assessment to DUE on the due day and OVERDUE on escalation, never a closed one', () => {
    expect(statusAfterStep('SCHEDULED', 'REMINDER')).toBe('SCHEDULED')
    expect(statusAfterStep('SCHEDULED', 'DUE')).toBe('DUE')
    expect(statusAfterStep('DUE', 'ESCALATION')).toBe('OVERDUE')
    expect(statusAfterStep('OVERDUE', 'DUE')).toBe('OVERDUE')
    expect(statusAfterStep('COMPLETED', 'ESCALATION')).toBe('COMPLETED')
    expect(statusAfterStep('CANCELLED', 'DUE')).toBe('CANCELLED')
  })
})

describe('due days in the centre’s zone', () => {
  it('starts a day at local midnight, across daylight-saving changes', () => {
    expect(startOfLocalDay('2026-03-08', 'America/Chicago').toISOString()).toBe('2026-03-08T06:00:00.000Z')
    expect(startOfLocalDay('2026-03-09', 'America/Chicago').toISOString()).toBe('2026-03-09T05:00:00.000Z')
    expect(startOfLocalDay('2026-10-25', 'Europe/London').toISOString()).toBe('2026-10-24T23:00:00.000Z')
    expect(startOfLocalDay('2026-10-26', 'Europe/London').toISOString()).toBe('2026-10-26T00:00:00.000Z')
  })

  it('starts a day whose midnight a DST gap skips at the first instant that exists', () => {
    // Santiago springs forward at local midnight: 2026-09-06 begins at 01:00 local (04:00Z).
    expect(startOfLocalDay('2026-09-06', 'America/Santiago').toISOString()).toBe('2026-09-06T04:00:00.000Z')
  })

  it('knows the local date of an instant and adds calendar days', () => {
    expect(localDateOf(new Date('2026-12-01T03:00:00Z'), 'America/Chicago')).toBe('2026-11-30')
    expect(addDays('2026-12-25', 180)).toBe('2027-06-23')
    expect(addDays('2028-02-28', 1)).toBe('2028-02-29')
  })
})

describe('assessment completion input', () => {
  it('needs at least one score per subtest and refuses a subtest twice or a malformed age equivalent', () => {
    expect(
      AssessmentCompletion.safeParse({
        scores: [{ subtest: 'Auditory Comprehension', standardScore: 88, percentile: 21, ageEquivalent: '3:4' }],
      }).success
    ).toBe(true)
    expect(AssessmentCompletion.safeParse({ scores: [{ subtest: 'Auditory Comprehension' }] }).success).toBe(false)
    expect(
      AssessmentCompletion.safeParse({
        scores: [
          { subtest: 'A', rawScore: 1 },
          { subtest: 'A', rawScore: 2 },
        ],
      }).success
    ).toBe(false)
    expect(AssessmentCompletion.safeParse({ scores: [{ subtest: 'A', ageEquivalent: '3:12' }] }).success).toBe(false)
    expect(AssessmentCompletion.safeParse({ scores: [] }).success).toBe(false)
  })
})
