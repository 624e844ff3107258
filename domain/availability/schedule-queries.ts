/**
 * @module The SQL availability and booking run: which providers, their time off, their appointments. Kept as plain
 * statements (not Prisma model queries) for two reasons: they are the hot path of the availability endpoint, where
 * only a few columns of thousands of rows are needed; and the benchmark runs exactly these statements, with the same
 * parameters, straight through `pg` to measure the database's share of the endpoint's time.
 *
 * Every statement filters by tenant explicitly, on top of row-level security.
 */
import { Prisma } from '../../generated/prisma/client.ts'

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

/** A row of {@link providerSchedulesSql}. */
export interface ProviderScheduleRow {
  id: string
  name: string
  time_zone: string
  weekly_hours: unknown
  onboarding_status: string
  location_id: string
  buffer_minutes: number
  minimum_notice_minutes: number
}

/** A row of {@link timeOffSql} and {@link appointmentSpansSql}: a span in epoch milliseconds. */
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
 * Providers with what the rules need, and the policies of the location that applies (the one asked for, else
 * the provider's primary location), in id order.
 */
export function providerSchedulesSql(s: ProviderSelection): Prisma.Sql {
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
  return Prisma.sql`
    SELECT p.id, p.name, p.time_zone, p.weekly_hours, p.onboarding_status::text AS onboarding_status,
           loc.id AS location_id, loc.buffer_minutes, loc.minimum_notice_minutes
    FROM providers p
    JOIN locations loc ON loc.id = ${location} AND loc.tenant_id = p.tenant_id
    WHERE ${Prisma.join(conditions, ' AND ')}
    ORDER BY p.id
    LIMIT ${s.limit}`
}

/** Time off of the providers overlapping [from, to). */
export function timeOffSql(tenantId: string, providerIds: string[], from: Date, to: Date): Prisma.Sql {
  return Prisma.sql`
    SELECT ${spanColumns} FROM provider_time_off
    WHERE tenant_id = ${tenantId} AND provider_id = ANY(${providerIds}::text[])
      AND starts_at < ${to} AND ends_at > ${from}`
}

/**
 * CONFIRMED appointments of the providers overlapping [from, to). `longest` bounds how long an appointment can be,
 * so the (provider_id, starts_at) index is scanned over a bounded range rather than from the beginning of time.
 */
export function appointmentSpansSql(
  tenantId: string,
  providerIds: string[],
  from: Date,
  to: Date,
  longestMinutes: number,
  excludeAppointmentId?: string
): Prisma.Sql {
  const earliestStart = new Date(from.getTime() - longestMinutes * 60_000)
  const exclude = excludeAppointmentId ? Prisma.sql`AND id <> ${excludeAppointmentId}` : Prisma.empty
  return Prisma.sql`
    SELECT ${spanColumns} FROM appointments
    WHERE tenant_id = ${tenantId} AND provider_id = ANY(${providerIds}::text[]) AND status = 'CONFIRMED'
      AND starts_at >= ${earliestStart} AND starts_at < ${to} AND ends_at > ${from} ${exclude}`
}
