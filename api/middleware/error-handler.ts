/**
 * @module The one place errors become HTTP: AppErrors map to RFC 9457 problem documents with their stable code;
 * an unreachable database is a 503 the client may retry; anything else is logged with the request id and answered
 * with a generic 500 that leaks no message, stack or SQL.
 */
import type { Context, ErrorHandler, NotFoundHandler } from 'hono'
import { HTTPException } from 'hono/http-exception'
import {
  AppError,
  dependencyUnavailable,
  invalidJson,
  invalidText,
  methodNotAllowed,
  routeNotFound,
  unsupportedMediaType,
} from '../../domain/errors.ts'
import { isDatabaseUnavailable, isUnstorableText } from '../../infra/db.ts'
import type { Logger } from '../../infra/logger.ts'
import type { AppEnv } from '../app-env.ts'

export const PROBLEM_CONTENT_TYPE = 'application/problem+json'

/** The problem-type URI of a code; the API serves the code's documentation there (api/routes/errors/). */
export const problemType = (baseUrl: string, code: string) => `${baseUrl}/errors/${code}`

/** Renders an AppError as a problem document response. */
export function problemResponse(c: Context<AppEnv>, error: AppError, baseUrl: string): Response {
  const body = {
    type: problemType(baseUrl, error.code),
    title: error.title,
    status: error.status,
    detail: error.message,
    instance: c.req.path,
    code: error.code,
    requestId: c.get('requestId'),
    ...(error.errors ? { errors: error.errors } : {}),
  }
  const headers: Record<string, string> = { 'Content-Type': PROBLEM_CONTENT_TYPE, ...error.headers }
  return c.body(JSON.stringify(body), error.status as 400, headers)
}

/** Hono's built-in validators throw HTTPExceptions; give them our codes. */
function fromHttpException(err: HTTPException): AppError {
  if (err.status === 415) return unsupportedMediaType()
  if (err.status === 400 && /malformed json/i.test(err.message)) return invalidJson()
  return new AppError(err.status, 'bad_request', 'Bad request', { detail: err.message })
}

/** Creates the app's error handler. */
export function errorHandler(logger: Logger, baseUrl: string): ErrorHandler<AppEnv> {
  return function onError(err, c) {
    if (err instanceof AppError) {
      // A 503 says only "retry later" to the client; the operator needs what failed underneath (a deadline, a refused
      // connection) to tell a slow dependency from a down one. The request's id and tenant come from the log context.
      if (err.status >= 500 && err.cause !== undefined) {
        logger.warn({ method: c.req.method, route: c.req.routePath, err: err.cause }, 'dependency unavailable')
      }
      return problemResponse(c, err, baseUrl)
    }
    if (err instanceof HTTPException && err.status < 500) return problemResponse(c, fromHttpException(err), baseUrl)
    // Validation lets such text through (it is valid JSON and a valid string); the database is the one that refuses
    // it, and the transaction has rolled back by now.
    if (isUnstorableText(err)) return problemResponse(c, invalidText(), baseUrl)
    if (isDatabaseUnavailable(err)) {
      logger.warn({ method: c.req.method, route: c.req.routePath, err }, 'database unavailable')
      return problemResponse(c, dependencyUnavailable('The database'), baseUrl)
    }
    logger.error({ requestId: c.get('requestId'), method: c.req.method, path: c.req.path, err }, 'unhandled error')
    const internal = new AppError(500, 'internal_error', 'Internal server error', {
      detail: 'An unexpected error occurred. Quote the request id when contacting support.',
    })
    return problemResponse(c, internal, baseUrl)
  }
}

/**
 * Unknown routes answer a problem document too: `405 method_not_allowed` with `Allow` when the path is served with
 * other methods (RFC 9110 §15.5.6), `404 not_found` otherwise (also when a handler found no such thing itself).
 * @param allowedFor - the methods a path is served with (api/middleware/allowed-methods.ts); none: always 404
 */
export const notFoundHandler =
  (baseUrl: string, allowedFor: (path: string) => string[] = () => []): NotFoundHandler<AppEnv> =>
  (c) => {
    const allowed = allowedFor(c.req.path)
    if (allowed.length > 0 && !allowed.includes(c.req.method)) {
      return problemResponse(c, methodNotAllowed(c.req.method, c.req.path, allowed), baseUrl)
    }
    return problemResponse(c, routeNotFound(c.req.path), baseUrl)
  }
