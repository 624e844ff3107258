/**
 * @module The clock, injected wherever "now" decides something (token expiry, sunset dates), so tests can stand on
 * either side of a date without waiting.
 */
export type Clock = () => Date

export const systemClock: Clock = () => new Date()
