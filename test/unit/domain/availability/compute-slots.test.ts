import { describe, expect, it } from 'vitest'
import { computeSlots, type SlotQuery } from '../../../../domain/availability/compute-slots.ts'
import { prepareSchedule, whyUnbookable, type ScheduleFacts } from '../../../../domain/availability/schedule-rules.ts'
import { normaliseWeeklyHours, type WeeklyHours } from '../../../../domain/availability/weekly-hours.ts'
import { zoneTimeline } from '../../../../domain/availability/zone-timeline.ts'

const MINUTE = 60_000
const at = (iso: string) => Date.parse(iso)
const NOW = at('2026-01-01T00:00:00Z')

function facts(overrides: Partial<ScheduleFacts> = {}): ScheduleFacts {
  return {
    timeZone: 'America/Chicago',
    weeklyHours: null,
    bookable: true,
    bufferMinutes: 0,
    minimumNoticeMinutes: 0,
    timeOff: [],
    appointments: [],
    ...overrides,
  }
}

const hours = (h: Partial<WeeklyHours>) => normaliseWeeklyHours(h)

function query(from: string, to: string, durationMinutes: number, stepMinutes = durationMinutes, now = NOW): SlotQuery {
  return { from: at(from), to: at(to), durationMinutes, stepMinutes, now }
}

/** Slots as local ISO strings in the provider's zone, as the API shows them. */
function shown(f: ScheduleFacts, q: SlotQuery): string[] {
  const zone = zoneTimeline(f.timeZone, q.from, q.to + q.durationMinutes * MINUTE)
  return computeSlots(f, q).map((s) => `${zone.format(s.start)}/${zone.format(s.end)}`)
}

describe('working hours in the provider zone', () => {
  it('keeps 09:00 local on both sides of the spring-forward change (America/Chicago)', () => {
    const f = facts({ weeklyHours: hours({ MONDAY: [{ start: '09:00', end: '11:00' }] }) })
    expect(shown(f, query('2026-03-01T00:00:00Z', '2026-03-11T00:00:00Z', 60))).toEqual([
      '2026-03-02T09:00:00-06:00/2026-03-02T10:00:00-06:00',
      '2026-03-02T10:00:00-06:00/2026-03-02T11:00:00-06:00',
      '2026-03-09T09:00:00-05:00/2026-03-09T10:00:00-05:00',
      '2026-03-09T10:00:00-05:00/2026-03-09T11:00:00-05:00',
    ])
  })

  it('spring-forward night: 01:00–04:00 is two real hours, the skipped hour offers nothing (Chicago 2026-03-08)', () => {
    const f = facts({ weeklyHours: hours({ SUNDAY: [{ start: '01:00', end: '04:00' }] }) })
    expect(shown(f, query('2026-03-08T00:00:00Z', '2026-03-09T00:00:00Z', 30))).toEqual([
      '2026-03-08T01:00:00-06:00/2026-03-08T01:30:00-06:00',
      '2026-03-08T01:30:00-06:00/2026-03-08T03:00:00-05:00',
      '2026-03-08T03:00:00-05:00/2026-03-08T03:30:00-05:00',
      '2026-03-08T03:30:00-05:00/2026-03-08T04:00:00-05:00',
    ])
  })

  it('fall-back night: 00:00–03:00 is four real hours and 01:00 is offered twice (Europe/London 2026-10-25)', () => {
    const f = facts({ timeZone: 'Europe/London', weeklyHours: hours({ SUNDAY: [{ start: '00:00', end: '03:00' }] }) })
    expect(shown(f, query('2026-10-24T12:00:00Z', '2026-10-25T12:00:00Z', 60))).toEqual([
      '2026-10-25T00:00:00+01:00/2026-10-25T01:00:00+01:00',
      '2026-10-25T01:00:00+01:00/2026-10-25T01:00:00+00:00',
      '2026-10-25T01:00:00+00:00/2026-10-25T02:00:00+00:00',
      '2026-10-25T02:00:00+00:00/2026-10-25T03:00:00+00:00',
    ])
  })

  it('keeps London working hours at 09:00 local across the spring change (2026-03-27 and 2026-03-30)', () => {
    const f = facts({
      timeZone: 'Europe/London',
      weeklyHours: hours({ FRIDAY: [{ start: '09:00', end: '10:00' }], MONDAY: [{ start: '09:00', end: '10:00' }] }),
    })
    expect(shown(f, query('2026-03-27T00:00:00Z', '2026-03-31T00:00:00Z', 60))).toEqual([
      '2026-03-27T09:00:00+00:00/2026-03-27T10:00:00+00:00',
      '2026-03-30T09:00:00+01:00/2026-03-30T10:00:00+01:00',
    ])
  })

  it('lets a slot run across midnight only where the intervals touch (24:00 then 00:00)', () => {
    const f = facts({
      weeklyHours: hours({ MONDAY: [{ start: '23:00', end: '24:00' }], TUESDAY: [{ start: '00:00', end: '01:00' }] }),
    })
    expect(shown(f, query('2026-06-01T00:00:00Z', '2026-06-03T12:00:00Z', 60, 30))).toEqual([
      '2026-06-01T23:00:00-05:00/2026-06-02T00:00:00-05:00',
      '2026-06-01T23:30:00-05:00/2026-06-02T00:30:00-05:00',
      '2026-06-02T00:00:00-05:00/2026-06-02T01:00:00-05:00',
    ])
  })

  it('offers split shifts without the lunch break', () => {
    const f = facts({
      weeklyHours: hours({
        WEDNESDAY: [
          { start: '13:00', end: '14:00' },
          { start: '09:00', end: '10:30' },
        ],
      }),
    })
    expect(shown(f, query('2026-06-03T00:00:00Z', '2026-06-04T00:00:00Z', 45, 45)).map((s) => s.slice(11, 16))).toEqual(
      ['09:00', '09:45', '13:00']
    )
  })

  it('offers nothing on a week with no hours ({}), unlike an open schedule (null)', () => {
    const closed = facts({ weeklyHours: hours({}) })
    expect(computeSlots(closed, query('2026-06-01T00:00:00Z', '2026-06-08T00:00:00Z', 60))).toEqual([])
  })
})

describe('open schedule (weeklyHours null)', () => {
  it('offers continuous slots round the clock: 23 on spring-forward day, 25 on fall-back day (Chicago)', () => {
    const f = facts()
    const spring = shown(f, query('2026-03-08T06:00:00Z', '2026-03-09T05:00:00Z', 60))
    expect(spring).toHaveLength(23)
    expect(spring[0]).toBe('2026-03-08T00:00:00-06:00/2026-03-08T01:00:00-06:00')
    expect(spring[2]).toBe('2026-03-08T03:00:00-05:00/2026-03-08T04:00:00-05:00')
    const fall = shown(f, query('2026-11-01T05:00:00Z', '2026-11-02T06:00:00Z', 60))
    expect(fall).toHaveLength(25)
    expect(fall.slice(1, 3)).toEqual([
      '2026-11-01T01:00:00-05:00/2026-11-01T01:00:00-06:00',
      '2026-11-01T01:00:00-06:00/2026-11-01T02:00:00-06:00',
    ])
  })

  it('aligns the grid on local quarter hours in a half-hour zone (Asia/Kolkata)', () => {
    const f = facts({ timeZone: 'Asia/Kolkata' })
    const slots = shown(f, query('2026-06-01T00:10:00Z', '2026-06-01T01:00:00Z', 15, 15))
    expect(slots.map((s) => s.slice(11, 16))).toEqual(['05:45', '06:00', '06:15'])
  })

  it('never offers a slot in the past', () => {
    const now = at('2026-06-01T15:07:00Z')
    const slots = computeSlots(facts(), query('2026-06-01T14:00:00Z', '2026-06-01T17:00:00Z', 30, 30, now))
    expect(new Date(slots[0]!.start).toISOString()).toBe('2026-06-01T15:30:00.000Z')
  })
})

describe('what removes slots', () => {
  const weekday = hours({ MONDAY: [{ start: '09:00', end: '13:00' }] })
  const monday = ['2026-06-01T00:00:00Z', '2026-06-02T00:00:00Z'] as const
  const startsOf = (f: ScheduleFacts, q: SlotQuery) => shown(f, q).map((s) => s.slice(11, 16))

  it('time off', () => {
    const f = facts({
      weeklyHours: weekday,
      timeOff: [{ start: at('2026-06-01T15:30:00Z'), end: at('2026-06-01T16:30:00Z') }],
    })
    // 10:30–11:30 local off: 60-minute slots overlapping it go; ending at 10:30 or starting at 11:30 is fine.
    expect(startsOf(f, query(...monday, 60, 30))).toEqual(['09:00', '09:30', '11:30', '12:00'])
  })

  it('a CONFIRMED appointment, back-to-back allowed', () => {
    const f = facts({
      weeklyHours: weekday,
      appointments: [{ start: at('2026-06-01T15:00:00Z'), end: at('2026-06-01T16:00:00Z') }],
    })
    expect(startsOf(f, query(...monday, 60, 30))).toEqual(['09:00', '11:00', '11:30', '12:00'])
  })

  it("the location's buffer around appointments", () => {
    const f = facts({
      weeklyHours: weekday,
      bufferMinutes: 15,
      appointments: [{ start: at('2026-06-01T15:00:00Z'), end: at('2026-06-01T16:00:00Z') }],
    })
    expect(startsOf(f, query(...monday, 60, 15))).toEqual(['11:15', '11:30', '11:45', '12:00'])
  })

  it("the location's minimum notice", () => {
    const f = facts({ weeklyHours: weekday, minimumNoticeMinutes: 120 })
    const now = at('2026-06-01T13:40:00Z') // 08:40 local: nothing before 10:40
    expect(startsOf(f, query(...monday, 60, 30, now))).toEqual(['11:00', '11:30', '12:00'])
  })

  it('a provider that is not bookable', () => {
    expect(computeSlots(facts({ bookable: false }), query(...monday, 60))).toEqual([])
  })
})

describe('one rule for availability and booking', () => {
  it('every offered slot is accepted, and once booked it is gone while its neighbours stay', () => {
    const base = facts({ weeklyHours: hours({ MONDAY: [{ start: '09:00', end: '17:00' }] }), bufferMinutes: 10 })
    const q = query('2026-06-01T00:00:00Z', '2026-06-02T00:00:00Z', 50, 10)
    const slots = computeSlots(base, q)
    const schedule = prepareSchedule(base, { start: q.from, end: q.to + 50 * MINUTE }, q.now)
    for (const slot of slots) expect(whyUnbookable(schedule, slot.start, slot.end)).toBeNull()

    const booked = slots[7]!
    const after = computeSlots({ ...base, appointments: [booked] }, q)
    expect(after.some((s) => s.start === booked.start)).toBe(false)
    expect(after.length).toBeGreaterThan(0)
    const afterSchedule = prepareSchedule(
      { ...base, appointments: [booked] },
      { start: q.from, end: q.to + 50 * MINUTE },
      q.now
    )
    expect(whyUnbookable(afterSchedule, booked.start, booked.end)).toBe('overlapping_appointment')
    expect(whyUnbookable(afterSchedule, booked.end, booked.end + 50 * MINUTE)).toBe('buffer')
    expect(whyUnbookable(afterSchedule, booked.end + 10 * MINUTE, booked.end + 60 * MINUTE)).toBeNull()
  })

  it('names the first rule broken, in a fixed order', () => {
    const f = facts({
      weeklyHours: hours({ MONDAY: [{ start: '09:00', end: '17:00' }] }),
      minimumNoticeMinutes: 60,
      timeOff: [{ start: at('2026-06-01T18:00:00Z'), end: at('2026-06-01T19:00:00Z') }],
    })
    const s = prepareSchedule(
      f,
      { start: at('2026-06-01T00:00:00Z'), end: at('2026-06-02T00:00:00Z') },
      at('2026-06-01T14:30:00Z')
    )
    expect(whyUnbookable(s, at('2026-06-01T15:00:00Z'), at('2026-06-01T16:00:00Z'))).toBe('minimum_notice')
    expect(whyUnbookable(s, at('2026-06-01T21:30:00Z'), at('2026-06-01T22:30:00Z'))).toBe('outside_working_hours')
    expect(whyUnbookable(s, at('2026-06-01T18:30:00Z'), at('2026-06-01T19:30:00Z'))).toBe('time_off')
    expect(whyUnbookable(s, at('2026-06-01T19:00:00Z'), at('2026-06-01T20:00:00Z'))).toBeNull()
    expect(whyUnbookable(prepareSchedule({ ...f, bookable: false }, s.facts.timeOff[0]!, 0), 0, 1)).toBe(
      'provider_not_bookable'
    )
  })
})
