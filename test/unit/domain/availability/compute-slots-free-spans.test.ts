import { describe, expect, it } from 'vitest'
import { freeSpans, slotsOf, type SlotQuery } from '../../../../domain/availability/compute-slots.ts'
import {
  localDays,
  prepareSchedule,
  whyUnbookable,
  type ProviderSchedule,
  type ScheduleFacts,
  type Span,
} from '../../../../domain/availability/schedule-rules.ts'
import { normaliseWeeklyHours, WEEKDAYS, type LocalInterval } from '../../../../domain/availability/weekly-hours.ts'

const MINUTE = 60_000
const DAY = 24 * 60 * MINUTE

/** mulberry32: seeded, so a failure names a reproducible case. */
function random(seed: number) {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed)
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

/**
 * The engine as it was before the free-span walk, and as the rule reads: every grid point, kept when the booking
 * predicate accepts it. The walk must offer exactly these.
 */
function slotsByPredicate(schedule: ProviderSchedule, query: SlotQuery): Span[] {
  if (!schedule.facts.bookable) return []
  const duration = query.durationMinutes * MINUTE
  const step = query.stepMinutes * MINUTE
  const earliest = Math.max(query.from, query.now)
  const anchors = schedule.workIntervals ?? localDays(schedule.zone, { start: query.from, end: query.to })
  const slots: Span[] = []
  let lastStart = Number.NEGATIVE_INFINITY
  for (const anchor of anchors) {
    if (anchor.end <= earliest || anchor.start >= query.to) continue
    const skip = earliest > anchor.start ? Math.ceil((earliest - anchor.start) / step) : 0
    for (let start = anchor.start + skip * step; start < anchor.end && start < query.to; start += step) {
      if (start <= lastStart) continue
      if (whyUnbookable(schedule, start, start + duration) === null) {
        slots.push({ start, end: start + duration })
        lastStart = start
      }
    }
  }
  return slots
}

const ZONES = ['America/Chicago', 'Europe/London', 'Australia/Lord_Howe', 'Asia/Kolkata', 'UTC']
// Ranges over daylight-saving changes of the zones above (2026: US 8 Mar / 1 Nov, EU 29 Mar / 25 Oct, Lord Howe 5 Apr / 4 Oct).
const STARTS = [
  '2026-03-05T00:00:00Z',
  '2026-03-27T00:00:00Z',
  '2026-10-02T00:00:00Z',
  '2026-10-30T00:00:00Z',
  '2026-06-10T13:17:00Z',
]

function randomCase(rand: () => number): { facts: ScheduleFacts; query: SlotQuery } {
  const pick = <T>(xs: readonly T[]) => xs[Math.floor(rand() * xs.length)]!
  const int = (lo: number, hi: number) => lo + Math.floor(rand() * (hi - lo + 1))
  const hhmm = (m: number) =>
    m === 1440 ? '24:00' : `${String(Math.floor(m / 60)).padStart(2, '0')}:${String(m % 60).padStart(2, '0')}`
  let weeklyHours: ScheduleFacts['weeklyHours'] = null
  if (rand() < 0.8) {
    const days: Record<string, LocalInterval[]> = {}
    for (const day of WEEKDAYS) {
      const intervals: LocalInterval[] = []
      // Up to three non-overlapping intervals on a 5-minute grid, sometimes touching, sometimes ending at 24:00.
      let at = int(0, 2) === 0 ? 0 : int(0, 120) * 5
      for (let n = int(0, 3); n > 0 && at < 1440; n--) {
        const end = Math.min(1440, at + int(1, 60) * 5)
        intervals.push({ start: hhmm(at), end: hhmm(end) })
        at = end + (rand() < 0.3 ? 0 : int(1, 40) * 5)
      }
      days[day] = intervals.filter((i) => i.start !== '24:00')
    }
    weeklyHours = normaliseWeeklyHours(days)
  }
  const from = Date.parse(pick(STARTS)) + int(0, 48) * 30 * MINUTE
  const to = from + int(1, 10) * DAY + int(0, 3) * 7 * MINUTE
  const spans = (n: number, longest: number, emptyToo: boolean) =>
    Array.from({ length: n }, () => {
      const start = from - DAY + int(0, 12 * 24 * 12) * 5 * MINUTE + (rand() < 0.1 ? int(1, 4) * MINUTE : 0)
      const length = emptyToo && rand() < 0.15 ? 0 : int(1, longest) * 5 * MINUTE
      return { start, end: start + length }
    })
  return {
    facts: {
      timeZone: pick(ZONES),
      weeklyHours,
      bookable: rand() < 0.95,
      bufferMinutes: pick([0, 0, 5, 10, 15, 30]),
      minimumNoticeMinutes: pick([0, 0, 60, 120, 1440]),
      timeOff: spans(int(0, 4), 300, true),
      appointments: spans(int(0, 40), 24, true),
    },
    query: {
      from,
      to,
      durationMinutes: pick([5, 15, 30, 45, 60, 90, 240]),
      stepMinutes: pick([5, 10, 15, 30, 45, 60, 7]),
      now: from + (rand() < 0.5 ? -int(0, 5000) : int(0, 3000)) * MINUTE,
    },
  }
}

describe('the free-span walk offers exactly what the booking predicate accepts', () => {
  it('on 3,000 random schedules across daylight-saving changes, with buffers, notice, empty and touching spans', () => {
    const rand = random(4)
    let offered = 0
    for (let n = 0; n < 3000; n++) {
      const { facts, query } = randomCase(rand)
      const schedule = prepareSchedule(
        facts,
        { start: query.from, end: query.to + query.durationMinutes * MINUTE },
        query.now
      )
      const expected = slotsByPredicate(schedule, query)
      expect(slotsOf(schedule, query), `case ${n}: ${JSON.stringify({ facts, query })}`).toEqual(expected)
      offered += expected.length
    }
    // The cases must exercise offering, not only refusing.
    expect(offered).toBeGreaterThan(50_000)
    // A property test over many cases, not a timing: 2-4 s alone, 13 s seen at load 29, past vitest's default 5 s.
  }, 60_000)
})

describe('freeSpans', () => {
  const schedule = (facts: Partial<ScheduleFacts>): ProviderSchedule =>
    prepareSchedule(
      {
        timeZone: 'UTC',
        weeklyHours: null,
        bookable: true,
        bufferMinutes: 0,
        minimumNoticeMinutes: 0,
        timeOff: [],
        appointments: [],
        ...facts,
      },
      { start: 0, end: 10 * DAY },
      0
    )

  it('cuts working stretches by time off and buffered appointments', () => {
    const monday = Date.parse('2026-06-01T00:00:00Z')
    const h = (x: number) => monday + x * 60 * MINUTE
    const s = prepareSchedule(
      {
        timeZone: 'UTC',
        weeklyHours: normaliseWeeklyHours({ MONDAY: [{ start: '09:00', end: '17:00' }] }),
        bookable: true,
        bufferMinutes: 15,
        minimumNoticeMinutes: 0,
        timeOff: [{ start: h(16), end: h(18) }],
        appointments: [{ start: h(10), end: h(11) }],
      },
      { start: monday, end: monday + DAY },
      0
    )
    expect(freeSpans(s)).toEqual([
      { start: h(9), end: h(9.75) },
      { start: h(11.25), end: h(16) },
    ])
  })

  it('splits at an empty blocked span into two touching free spans, so nothing across that instant fits', () => {
    expect(freeSpans(schedule({ appointments: [{ start: DAY, end: DAY }] }))).toEqual([
      { start: Number.NEGATIVE_INFINITY, end: DAY },
      { start: DAY, end: Number.POSITIVE_INFINITY },
    ])
  })
})
