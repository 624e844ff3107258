/**
 * @module Request ids: taken from a well-formed `X-Request-Id` header or generated, set on the context for logs and
 * problem documents, and echoed on every response (errors included) so a caller can quote it to support.
 */
import { randomUUID } from 'node:crypto'
import type { MiddlewareHandler } from 'hono'
import { runWithLogContext } from '../../infra/log-context.ts'
import type { AppEnv } from '../app-env.ts'

const WELL_FORMED = /^[\w\-.=:]{1,128}$/

export const requestId = (): MiddlewareHandler<AppEnv> =>
  async function requestId(c, next) {
    const incoming = c.req.header('X-Request-Id')
    const id = incoming && WELL_FORMED.test(incoming) ? incoming : `req_${randomUUID().replace(/-/g, '')}`
    c.set('requestId', id)
    c.header('X-Request-Id', id)
    await runWithLogContext({ requestId: id }, next)
    c.res.headers.set('X-Request-Id', id)
  }
