/**
 * @module Seeds a realistic month for the availability benchmark: one centre, 200 providers in four US zones with
 * weekly hours (a few with open schedules), time off (vacations and half days), and about six appointments per
 * provider per working day (30, 45 or 60 minutes, some cancelled) for five weeks from `start`, plus four weeks of
 * history before it (completed, no-shows, cancellations). Deterministic (seeded random), so runs compare.
 *
 * Appointments never overlap for a provider or for a child (each child is tied to one provider and one position in
 * that provider's day), as the database's double-booking guards require.
 */
import type { Prisma } from '../../generated/prisma/client.ts'
import type { Db } from '../../infra/db.ts'
import { newId } from '../../domain/ids.ts'
import { layOutWeeklyHours, type Span } from '../../domain/availability/schedule-rules.ts'
import { normaliseWeeklyHours, type WeeklyHours } from '../../domain/availability/weekly-hours.ts'
import { zoneTimeline } from '../../domain/availability/zone-timeline.ts'

const MINUTE = 60_000
const DAY = 24 * 60 * MINUTE
const HISTORY_DAYS = 28
const FUTURE_DAYS = 35
const MAX_PER_DAY = 8

/** mulberry32: a small seeded generator, so every run seeds the same data. */
function random(seed: number) {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed)
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

const ZONES = [
  'America/Chicago',
  'America/Chicago',
  'America/Chicago',
  'America/Chicago',
  'America/Chicago',
  'America/Chicago',
  'America/Chicago',
  'America/New_York',
  'America/Denver',
  'America/Los_Angeles',
]
const DISCIPLINES = [
  'SPEECH_THERAPY',
  'OCCUPATIONAL_THERAPY',
  'PHYSICAL_THERAPY',
  'EARLY_INTERVENTION',
  'FEEDING_THERAPY',
]
const LANGUAGES = [['en'], ['en'], ['en', 'es-MX'], ['es'], ['en', 'vi']]
const weekdays = (
  interval: Array<{ start: string; end: string }>,
  days = ['MONDAY', 'TUESDAY', 'WEDNESDAY', 'THURSDAY', 'FRIDAY']
) => normaliseWeeklyHours(Object.fromEntries(days.map((d) => [d, interval])))
const HOURS: Array<WeeklyHours | null> = [
  weekdays([
    { start: '08:00', end: '12:00' },
    { start: '13:00', end: '17:00' },
  ]),
  weekdays([{ start: '09:00', end: '17:00' }]),
  weekdays([{ start: '10:00', end: '18:30' }], ['TUESDAY', 'WEDNESDAY', 'THURSDAY', 'FRIDAY', 'SATURDAY']),
  weekdays([{ start: '07:30', end: '15:30' }]),
  weekdays([
    { start: '08:00', end: '12:00' },
    { start: '14:00', end: '19:00' },
  ]),
]

export interface SeededMonth {
  providerIds: string[]
  appointments: number
  timeOff: number
}

/**
 * Seeds the month into the tenant's location.
 * @param start - first instant of the "current" month (queries start here); history goes before it
 */
export async function seedAvailabilityMonth(
  db: Db,
  { tenantId, locationId, providers, start }: { tenantId: string; locationId: string; providers: number; start: Date }
): Promise<SeededMonth> {
  const rand = random(20261121)
  const pick = <T>(xs: readonly T[]) => xs[Math.floor(rand() * xs.length)]!
  await db.location.update({ where: { id: locationId }, data: { bufferMinutes: 10, minimumNoticeMinutes: 120 } })

  const providerRows = Array.from({ length: providers }, (_, i) => ({
    id: newId('provider'),
    tenantId,
    locationId,
    name: `Bench provider ${i}`,
    timeZone: pick(ZONES),
    disciplines: [pick(DISCIPLINES)],
    languages: pick(LANGUAGES),
    // One in twenty keeps an open schedule.
    weeklyHours: i % 20 === 19 ? null : pick(HOURS),
  }))
  await db.provider.createMany({
    data: providerRows.map((p) => ({
      ...p,
      weeklyHours: (p.weeklyHours ?? undefined) as Prisma.InputJsonValue | undefined,
    })),
  })
  await db.providerLocation.createMany({ data: providerRows.map((p) => ({ tenantId, providerId: p.id, locationId })) })

  const children = providerRows.flatMap((p) =>
    Array.from({ length: MAX_PER_DAY }, (_, k) => ({
      id: newId('child'),
      tenantId,
      locationId,
      firstName: 'Bench',
      lastName: `${p.name} ${k}`,
      dateOfBirth: new Date('2022-06-01T00:00:00Z'),
    }))
  )
  await createInChunks(children, (data) => db.child.createMany({ data }))

  const from = start.getTime() - HISTORY_DAYS * DAY
  const to = start.getTime() + FUTURE_DAYS * DAY
  const appointments: Prisma.AppointmentCreateManyInput[] = []
  const timeOff: Prisma.ProviderTimeOffCreateManyInput[] = []

  providerRows.forEach((provider, p) => {
    const zone = zoneTimeline(provider.timeZone, from, to)
    // Open schedules book like a 09:00–17:00 week; working hours otherwise.
    const hours = provider.weeklyHours ?? HOURS[1]!
    const intervals = layOutWeeklyHours(hours, zone, { start: from, end: to }).filter(
      (s) => s.start >= from && s.end <= to
    )
    const byDay = new Map<number, Span[]>()
    for (const interval of intervals) {
      const day = Math.floor(zone.toLocal(interval.start) / DAY)
      byDay.set(day, [...(byDay.get(day) ?? []), interval])
    }
    // One provider in seven takes a week of vacation this month; one in three a half day.
    if (p % 7 === 3) {
      const startsAt = new Date(start.getTime() + (7 + (p % 14)) * DAY)
      timeOff.push({
        id: newId('timeOff'),
        tenantId,
        providerId: provider.id,
        startsAt,
        endsAt: new Date(startsAt.getTime() + 5 * DAY),
        reason: 'VACATION',
      })
    }
    if (p % 3 === 0) {
      const first = intervals.find((s) => s.start >= start.getTime() + (p % 10) * DAY)
      if (first)
        timeOff.push({
          id: newId('timeOff'),
          tenantId,
          providerId: provider.id,
          startsAt: new Date(first.start),
          endsAt: new Date(first.end),
          reason: 'PERSONAL',
        })
    }
    for (const dayIntervals of byDay.values()) {
      const count = 5 + Math.floor(rand() * 4) // 5..8 attempted; a full day places fewer, about 6 on average
      const taken: Span[] = []
      for (let k = 0, attempts = 0; k < count && attempts < 40; attempts++) {
        const interval = pick(dayIntervals)
        const minutes = pick([30, 45, 60, 60])
        const slots = Math.floor((interval.end - interval.start - minutes * MINUTE) / (15 * MINUTE))
        if (slots < 0) continue
        const startsAt = interval.start + Math.floor(rand() * (slots + 1)) * 15 * MINUTE
        const span = { start: startsAt, end: startsAt + minutes * MINUTE }
        // Keep the location's 10-minute buffer, as booking does.
        if (taken.some((t) => span.start < t.end + 10 * MINUTE && t.start < span.end + 10 * MINUTE)) continue
        taken.push(span)
        const past = span.start < start.getTime()
        const roll = rand()
        const status = roll < 0.1 ? 'CANCELLED' : past ? (roll < 0.15 ? 'NO_SHOW' : 'COMPLETED') : 'CONFIRMED'
        const cancelledAt = status === 'CANCELLED' ? new Date(span.start - 2 * DAY) : undefined
        appointments.push({
          id: newId('appointment'),
          tenantId,
          locationId,
          childId: children[p * MAX_PER_DAY + k]!.id,
          providerId: provider.id,
          type: 'THERAPY_SESSION',
          service: provider.disciplines[0]!,
          status,
          startsAt: new Date(span.start),
          endsAt: new Date(span.end),
          timeZone: provider.timeZone,
          cancelledAt,
        })
        k++
      }
    }
  })
  await createInChunks(appointments, (rows) => insertAppointments(db, rows), 10_000)
  await createInChunks(timeOff, (data) => db.providerTimeOff.createMany({ data }))
  return {
    providerIds: providerRows.map((p) => p.id).sort(),
    appointments: appointments.length,
    timeOff: timeOff.length,
  }
}

async function createInChunks<T>(rows: T[], create: (rows: T[]) => Promise<unknown>, size = 2000) {
  for (let i = 0; i < rows.length; i += size) await create(rows.slice(i, i + size))
}

/**
 * Bulk insert through unnest: Prisma's createMany spends most of a minute building 50,000 rows in the client. The
 * columns are listed explicitly, so a new required column of appointments fails here loudly.
 */
async function insertAppointments(db: Db, rows: Prisma.AppointmentCreateManyInput[]) {
  const column = <K extends keyof Prisma.AppointmentCreateManyInput>(key: K) => rows.map((r) => r[key] ?? null)
  await db.$executeRaw`
    INSERT INTO appointments (id, tenant_id, location_id, child_id, provider_id, type, status, service, starts_at, ends_at,
                              time_zone, cancelled_at, updated_at)
    SELECT id, tenant_id, location_id, child_id, provider_id, type::"AppointmentType", status::"AppointmentStatus", service,
           starts_at, ends_at, time_zone, cancelled_at, now()
    FROM unnest(${column('id')}::text[], ${column('tenantId')}::text[], ${column('locationId')}::text[],
                ${column('childId')}::text[], ${column('providerId')}::text[], ${column('type')}::text[],
                ${column('status')}::text[], ${column('service')}::text[], ${column('startsAt')}::timestamptz[],
                ${column('endsAt')}::timestamptz[], ${column('timeZone')}::text[], ${column('cancelledAt')}::timestamptz[])
      AS t(id, tenant_id, location_id, child_id, provider_id, type, status, service, starts_at, ends_at, time_zone, cancelled_at)`
}
