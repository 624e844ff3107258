/**
 * @module Time-zone arithmetic for appointment times: shown with the UTC offset of the location's zone at that
 * instant (docs/conventions.md), computed with Intl so daylight-saving transitions are right.
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
 */
export const OFFSET_DATE_TIME = /^\d{4}-\d{2}-\d{2}[Tt]\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?([Zz]|[+-]\d{2}:\d{2})$/

/** A server timestamp in UTC with `Z` and millisecond precision. */
export const toUtcString = (instant: Date): string => instant.toISOString()
