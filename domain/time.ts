/**
 * @module Instants on the wire: the RFC 3339 pattern requests are checked against and the UTC form of server
 * timestamps. Everything about time zones lives in time-zones.ts; its validation and formatting are re-exported here
 * for the callers that have always imported them from this module.
 */

export { formatInTimeZone, isValidTimeZone } from './time-zones.ts'

/** Years 0001 to 9999: PostgreSQL has no year 0 (JavaScript's year 0 is 1 BC), and RFC 3339 writes four digits. */
const YEAR = '(000[1-9]|00[1-9]\\d|0[1-9]\\d{2}|[1-9]\\d{3})'

/** A month and a day of it, bounded as `Date.parse` bounds them (it rolls 30 February over to March). */
const MONTH_DAY = '(0[1-9]|1[0-2])-(0[1-9]|[12]\\d|3[01])'

/**
 * ISO 8601 date-time with a mandatory offset or Z, as RFC 3339 requires (which allows a lower-case t and z).
 * No regex flags: the pattern is published in the OpenAPI description, where JSON Schema has no flags; an `i` flag
 * came out as a pattern ending in `$/i` that no value can match (found by Schemathesis).
 *
 * Its fields are bounded as the API takes them, so the pattern says which values it accepts: year 0001-9999, month
 * 01-12, day 01-31, 00:00-23:59 with seconds up to 59 or 24:00 (the end of the day), offsets up to ±23:59. With
 * `\d{2}` everywhere, nearly every value a client or fuzzer drew from the pattern was refused by the `Date.parse`
 * check behind it. Neither refuses 30 February: `Date.parse` rolls it over to March. {@link isStorableInstant} keeps
 * the check for what a pattern cannot see.
 */
export const OFFSET_DATE_TIME = new RegExp(
  `^${YEAR}-${MONTH_DAY}[Tt](([01]\\d|2[0-3]):[0-5]\\d(:[0-5]\\d(\\.\\d{1,9})?)?|24:00(:00(\\.0{1,9})?)?)` +
    '([Zz]|[+-]([01]\\d|2[0-3]):[0-5]\\d)$'
)

/** A calendar date, YYYY-MM-DD, bounded as {@link OFFSET_DATE_TIME}'s date; days a month lacks are checked apart. */
export const CALENDAR_DATE = new RegExp(`^${YEAR}-${MONTH_DAY}$`)

/**
 * The instants the API takes: a day inside years 0001-9999 at either end, so that the local date of one in any zone
 * (offsets stay within a day) has four digits, and PostgreSQL, which has no year 0, stores it.
 */
const EARLIEST_INSTANT = Date.parse('0001-01-02T00:00:00Z')
const LATEST_INSTANT = Date.parse('9999-12-31T00:00:00Z')

/**
 * Whether a date-time (already of {@link OFFSET_DATE_TIME}'s shape) names an instant the API can store, compare and
 * show in a location's zone: `Date.parse` takes it, and it lies from 0001-01-02 to 9999-12-30 in UTC.
 * `0000-01-01T00:00Z` reached PostgreSQL, which has no year 0, from list filters: a 500 before this check, found by
 * Schemathesis.
 * @param value - the date-time as sent
 */
export function isStorableInstant(value: string): boolean {
  const instant = Date.parse(value)
  return !Number.isNaN(instant) && instant >= EARLIEST_INSTANT && instant < LATEST_INSTANT
}
