/**
 * @module Time-zone arithmetic for appointment times: shown with the UTC offset of the location's zone at that
 * instant (CONVENTIONS.md), computed with Intl so daylight-saving transitions are right.
 */

const formatterCache = new Map<string, Intl.DateTimeFormat>()

function formatterFor(timeZone: string): Intl.DateTimeFormat {
  let formatter = formatterCache.get(timeZone)
  if (!formatter) {
    formatter = new Intl.DateTimeFormat('en-US', {
      timeZone,
      hourCycle: 'h23',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
      timeZoneName: 'longOffset',
    })
    formatterCache.set(timeZone, formatter)
  }
  return formatter
}

/**
 * Whether a string names an IANA time zone this runtime knows.
 * @param timeZone - e.g. `America/Chicago`
 */
export function isValidTimeZone(timeZone: string): boolean {
  try {
    formatterFor(timeZone)
    return true
  } catch {
    return false
  }
}

/**
 * Formats an instant as ISO 8601 local time with the zone's offset, e.g. `2026-12-01T09:00:00-06:00`.
 * @param instant - the moment to format
 * @param timeZone - IANA zone whose offset at that instant is used
 */
export function formatInTimeZone(instant: Date, timeZone: string): string {
  const parts = Object.fromEntries(
    formatterFor(timeZone)
      .formatToParts(instant)
      .map((p) => [p.type, p.value])
  )
  // longOffset gives "GMT-06:00", or plain "GMT" for a zero offset.
  const offset = parts.timeZoneName === 'GMT' ? '+00:00' : (parts.timeZoneName ?? 'GMT+00:00').slice(3)
  const millis = instant.getUTCMilliseconds()
  const fraction = millis ? `.${String(millis).padStart(3, '0')}` : ''
  return `${parts.year}-${parts.month}-${parts.day}T${parts.hour}:${parts.minute}:${parts.second}${fraction}${offset}`
}

/**
 * ISO 8601 date-time with a mandatory offset or Z, as RFC 3339 requires (which allows a lower-case t and z).
 * No regex flags: the pattern is published in the OpenAPI description, where JSON Schema has no flags; an `i` flag
 * came out as a pattern ending in `$/i` that no value can match (found by Schemathesis).
 *
 * Its fields are bounded as `Date.parse` bounds them, so the pattern says which values the API takes: month 01-12,
 * day 01-31, 00:00-23:59 with seconds up to 59 or 24:00 (the end of the day), offsets up to ±23:59. With `\d{2}`
 * everywhere, nearly every value a client or fuzzer drew from the pattern was refused by the `Date.parse` check
 * behind it. Neither refuses 30 February: `Date.parse` rolls it over to March.
 */
export const OFFSET_DATE_TIME =
  /^\d{4}-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])[Tt](([01]\d|2[0-3]):[0-5]\d(:[0-5]\d(\.\d{1,9})?)?|24:00(:00(\.0{1,9})?)?)([Zz]|[+-]([01]\d|2[0-3]):[0-5]\d)$/

/**
 * A calendar date, YYYY-MM-DD, with its month and day bounded as for {@link OFFSET_DATE_TIME}; the schemas that take
 * one still refuse days a month lacks (2026-02-30).
 */
export const CALENDAR_DATE = /^\d{4}-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])$/

/** A server timestamp in UTC with `Z` and millisecond precision. */
export const toUtcString = (instant: Date): string => instant.toISOString()
