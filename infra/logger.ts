/**
 * @module Structured logs. Operators read these as plain text, so they carry ids only: never names, dates of birth,
 * notes or diagnoses (CONVENTIONS.md). Request bodies are never logged.
 */
import { pino, type Logger } from 'pino'

export type { Logger }

/**
 * Creates the process logger.
 * @param level - minimum level; `silent` in tests that do not look at logs
 * @param name - the process role, e.g. `api` or `worker`
 */
export function createLogger(level: string, name: string): Logger {
  return pino({ level, name, base: { service: 'therapy-care', role: name } })
}
