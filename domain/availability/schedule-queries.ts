/**
 * @module The SQL availability and booking run. Kept as plain statements (not Prisma model queries) for two reasons:
 * they are the hot path of the availability endpoint, where only a few columns of thousands of rows are needed; and
 * the benchmark runs exactly these statements, with the same parameters, straight through `pg` to measure the
 * database's share of the endpoint's time.
 *
 * Every statement filters by tenant explicitly, on top of row-level security.
 */
import { Prisma } from '../../generated/prisma/client.ts'
import { MAX_TIME_OFF_DAYS } from '../providers/time-off-length.ts'

/** Which providers to load. */
export interface ProviderSelection {
  tenantId: string
  /** Exactly these providers (any onboarding status). */
  providerIds?: string[]
  /** Only providers practising this discipline. */
  discipline?: string
  /** Only providers speaking this canonical BCP 47 tag or a regional variant of it (`es` matches `es-MX`). */
  language?: string
  /** Only providers working at this location; its policies (buffer, notice) then apply. */
  locationId?: string
  /** Only APPROVED providers. */
  approvedOnly?: boolean
  /** Keyset position: ids after this one. */
  afterId?: string
  limit: number
}

/** A row of {@link timeOffSql}: a span in epoch milliseconds. */
export interface ProviderSpanRow {
  provider_id: string
  starts_ms: number
  ends_ms: number
}

/**
 * Spans travel as epoch milliseconds (float8, exact below 2^53), not timestamps: parsing thousands of timestamptz
 * values into Dates costs the client several times what the database spends finding the rows (docs/benchmarks.md).
 * `date_part` computes in float8 where `extract` computes in numeric; `round` makes the float
 * product an exact whole millisecond again.
 */
const spanColumns = Prisma.sql`provider_id, round(date_part('epoch', starts_at) * 1000) AS starts_ms,
    round(date_part('epoch', ends_at) * 1000) AS ends_ms`

/**
 * The condition "provider p speaks `language` or a regional variant of it"; shared with the provider list filter.
 * @param language - a canonical BCP 47 tag
 */
export const speaksSql = (language: string) =>
  Prisma.sql`EXISTS (SELECT 1 FROM unnest(p.languages) AS l(tag) WHERE l.tag = ${language} OR l.tag LIKE ${`${language}-%`})`

/**
 * Epoch milliseconds of a timestamptz column as exact integer text: `date_part` computes in float8 (where `extract`
 * computes in numeric), `round` makes the float product an exact whole millisecond again.
 */
const epochMs = (column: Prisma.Sql) => Prisma.sql`round(date_part('epoch', ${column}) * 1000)::bigint::text`

/** A provider as {@link scheduleFactsSql} returns it: a JSON array, positions as named. */
export type ProviderFactsTuple = [
  id: string,
  name: string,
  timeZone: string,
  weeklyHours: unknown,
  onboardingStatus: string,
  locationId: string,
  bufferMinutes: number,
  minimumNoticeMinutes: number,
  /** Start and end of each time off, flat: [start0, end0, start1, end1, ...], epoch ms. */
  timeOff: number[],
  /** The same for CONFIRMED appointments. */
  appointments: number[],
]

/**
 * Everything the booking rules need about the selected providers, in one statement and one row: a JSON array (as
 * text) of {@link ProviderFactsTuple} in provider id order. Providers come with the policies of the location that
 * applies (the one asked for, else the provider's primary location), their time off overlapping
 * [from - buffer, to + buffer) and their CONFIRMED appointments overlapping it, `buffer` being the provider's own
 * location's. Appointment starts are bounded below by the longest possible appointment (`longestMinutes`), so the
 * (provider_id, starts_at) index is scanned over a bounded range rather than from the beginning of time.
 *
 * Why one row of JSON text: the request then costs one round trip whatever the number of providers, and the client
 * parses one string with `JSON.parse` (native) instead of mapping thousands of rows through the driver and Prisma,
 * which cost several times what PostgreSQL spent finding them (docs/availability.md, Performance). Spans are flat
 * number arrays: no object per span on either side. Text, not `json`, so no layer in between parses it on the way.
 */
export function scheduleFactsSql(
  s: ProviderSelection,
  window: { from: Date; to: Date; longestMinutes: number; excludeAppointmentId?: string }
): Prisma.Sql {
  const conditions: Prisma.Sql[] = [Prisma.sql`p.tenant_id = ${s.tenantId}`]
  if (s.providerIds) conditions.push(Prisma.sql`p.id = ANY(${s.providerIds}::text[])`)
  if (s.discipline) conditions.push(Prisma.sql`${s.discipline} = ANY(p.disciplines)`)
  if (s.language) conditions.push(speaksSql(s.language))
  if (s.locationId) {
    conditions.push(
      Prisma.sql`EXISTS (SELECT 1 FROM provider_locations pl WHERE pl.provider_id = p.id AND pl.location_id = ${s.locationId})`
    )
  }
  if (s.approvedOnly) conditions.push(Prisma.sql`p.onboarding_status = 'APPROVED'`)
  if (s.afterId) conditions.push(Prisma.sql`p.id > ${s.afterId}`)
  const location = s.locationId ? Prisma.sql`${s.locationId}` : Prisma.sql`p.location_id`
  const exclude = window.excludeAppointmentId ? Prisma.sql`AND a.id <> ${window.excludeAppointmentId}` : Prisma.empty
  const flat = (start: Prisma.Sql, end: Prisma.Sql) =>
    Prisma.sql`('[' || coalesce(string_agg(${epochMs(start)} || ',' || ${epochMs(end)}, ','), '') || ']')::json`
  return Prisma.sql`
    WITH chosen AS (
      SELECT p.id, p.name, p.time_zone, p.weekly_hours, p.onboarding_status::text AS onboarding_status,
             loc.id AS location_id, loc.buffer_minutes, loc.minimum_notice_minutes,
             ${window.from}::timestamptz - make_interval(mins => loc.buffer_minutes) AS window_from,
             ${window.to}::timestamptz + make_interval(mins => loc.buffer_minutes) AS window_to
      FROM providers p
      JOIN locations loc ON loc.id = ${location} AND loc.tenant_id = p.tenant_id
      WHERE ${Prisma.join(conditions, ' AND ')}
      ORDER BY p.id
      LIMIT ${s.limit}
    )
    SELECT coalesce(json_agg(json_build_array(
      c.id, c.name, c.time_zone, c.weekly_hours, c.onboarding_status, c.location_id, c.buffer_minutes,
      c.minimum_notice_minutes,
      (SELECT ${flat(Prisma.sql`t.starts_at`, Prisma.sql`t.ends_at`)} FROM provider_time_off t
        WHERE t.tenant_id = ${s.tenantId} AND t.provider_id = c.id AND ${timeOffOverlaps(Prisma.sql`c.window_from`, Prisma.sql`c.window_to`)}),
      (SELECT ${flat(Prisma.sql`a.starts_at`, Prisma.sql`a.ends_at`)} FROM appointments a
        WHERE a.tenant_id = ${s.tenantId} AND a.provider_id = c.id AND a.status = 'CONFIRMED'
          AND a.starts_at >= c.window_from - make_interval(mins => ${window.longestMinutes}::int)
          AND a.starts_at < c.window_to AND a.ends_at > c.window_from ${exclude})
    ) ORDER BY c.id), '[]')::text AS facts
    FROM chosen c`
}

/** Time off of the providers overlapping [from, to). */
export function timeOffSql(tenantId: string, providerIds: string[], from: Date, to: Date): Prisma.Sql {
  return Prisma.sql`
    SELECT ${spanColumns} FROM provider_time_off
    WHERE tenant_id = ${tenantId} AND provider_id = ANY(${providerIds}::text[])
      AND ${timeOffOverlaps(Prisma.sql`${from}::timestamptz`, Prisma.sql`${to}::timestamptz`)}`
}

/**
 * Time off overlapping [from, to), read through the (provider_id, starts_at) index over a bounded range: time off
 * lasts at most {@link MAX_TIME_OFF_DAYS}, so none starting earlier reaches the window, and the provider's older
 * history is not read (it was, for every booking: the guard in test/integration/booking-statement-plans.int.test.ts).
 * Plain comparisons, not a range overlap an index on the span could answer: under row-level security only leakproof
 * operators may be index conditions, and `&&` on ranges is not.
 */
const timeOffOverlaps = (from: Prisma.Sql, to: Prisma.Sql) =>
  Prisma.sql`starts_at < ${to} AND starts_at > ${from} - make_interval(days => ${MAX_TIME_OFF_DAYS}::int) AND ends_at > ${from}`
