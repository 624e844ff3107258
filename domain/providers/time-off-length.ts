/**
 * @module How long one entry of time off may last: checked when it is recorded (time-off-service.ts), held by the
 * database too (migration `time_off_longest`), and relied on by the availability queries, which read a provider's time
 * off only as far back as one entry can reach (domain/availability/schedule-queries.ts).
 */

/** Longest single range: a year (a longer absence is offboarding, or several entries). */
export const MAX_TIME_OFF_DAYS = 366
