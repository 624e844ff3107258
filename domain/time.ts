/**
 * @module Instants on the wire: the RFC 3339 pattern requests are checked against and the UTC form of server
 * timestamps. Everything about time zones lives in time-zones.ts; its validation and formatting are re-exported here
 * for the callers that have always imported them from this module.
 */

export { formatInTimeZone, isValidTimeZone } from './time-zones.ts'

/**
 * ISO 8601 date-time with a mandatory offset or Z, as RFC 3339 requires (which allows a lower-case t and z).
 * No regex flags: the pattern is published in the OpenAPI description, where JSON Schema has no flags; an `i` flag
 * came out as a pattern ending in `$/i` that no value can match (found by Schemathesis).
 */
export const OFFSET_DATE_TIME = /^\d{4}-\d{2}-\d{2}[Tt]\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?([Zz]|[+-]\d{2}:\d{2})$/

/** A server timestamp in UTC with `Z` and millisecond precision. */
export const toUtcString = (instant: Date): string => instant.toISOString()
