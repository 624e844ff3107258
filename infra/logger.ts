/**
 * @module Structured logs. Operators read these as plain text, so they carry ids only: never names, dates of birth,
 * notes or diagnoses (docs/conventions.md). Request bodies are never logged.
 */
import { pino, type DestinationStream, type Logger } from 'pino'
import { currentLogContext } from './log-context.ts'
import { safeError } from './safe-error.ts'

export type { Logger }

/**
 * Creates the process logger.
 * @param level - minimum level; `silent` in tests that do not look at logs
 * @param name - the process role, e.g. `api` or `worker`
 * @param destination - where lines go (standard output by default)
 */
export function createLogger(level: string, name: string, destination?: DestinationStream): Logger {
  const options = {
    level,
    name,
    base: { service: 'therapy-care', role: name },
    // Every line written while a request runs names the request and its tenant (infra/log-context.ts).
    mixin: () => ({ ...currentLogContext() }),
    // Errors logged under `err` lose the values their messages quote (infra/safe-error.ts).
    serializers: { err: safeError },
  }
  return destination ? pino(options, destination) : pino(options)
}
