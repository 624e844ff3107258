/**
 * @module The context every log line of a request carries: its request id and, once the caller is known, its
 * tenant. Kept in AsyncLocalStorage and added by the logger itself, so a line written deep in a domain function or
 * an after-commit task is as traceable as one written by a handler, without threading a logger through every call.
 */
import { AsyncLocalStorage } from 'node:async_hooks'

export interface LogContext {
  requestId?: string
  tenantId?: string
}

const storage = new AsyncLocalStorage<LogContext>()

/** Runs `work` with `context` attached to every log line it writes (mutable: the tenant is added when known). */
export const runWithLogContext = <T>(context: LogContext, work: () => T): T => storage.run(context, work)

/** The context of the running request, if any. */
export const currentLogContext = (): LogContext | undefined => storage.getStore()
