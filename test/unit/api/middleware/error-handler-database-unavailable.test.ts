import { Hono } from 'hono'
import { describe, expect, it, vi } from 'vitest'
import type { AppEnv } from '../../../../api/app-env.ts'
import { errorHandler } from '../../../../api/middleware/error-handler.ts'
import { AppError, dependencyUnavailable } from '../../../../domain/errors.ts'
import { isDatabaseUnavailable } from '../../../../infra/db.ts'
import { createLogger } from '../../../../infra/logger.ts'

const withCode = (code: string, message = 'x') => Object.assign(new Error(message), { code })

describe('isDatabaseUnavailable', () => {
  it('recognises an unreachable or shutting-down server, also wrapped by the driver adapter', () => {
    expect(isDatabaseUnavailable(withCode('ECONNREFUSED'))).toBe(true)
    expect(isDatabaseUnavailable(withCode('57P01', 'terminating connection due to administrator command'))).toBe(true)
    expect(isDatabaseUnavailable(withCode('08006'))).toBe(true)
    expect(isDatabaseUnavailable(new Error('Connection terminated unexpectedly'))).toBe(true)
    expect(
      isDatabaseUnavailable(new Error('driver error', { cause: new Error('timeout exceeded when trying to connect') }))
    ).toBe(true)
    expect(isDatabaseUnavailable(Object.assign(new Error('adapter'), { cause: withCode('P1001') }))).toBe(true)
  })

  it('leaves query errors alone: they are bugs or conflicts, not outages', () => {
    expect(isDatabaseUnavailable(withCode('23505', 'duplicate key value'))).toBe(false)
    expect(isDatabaseUnavailable(withCode('42P01', 'relation does not exist'))).toBe(false)
    expect(isDatabaseUnavailable(new Error('Cannot read properties of undefined'))).toBe(false)
    expect(isDatabaseUnavailable(undefined)).toBe(false)
  })

  it('turns an outage into a 503 problem the client may retry, and a bug into a 500 that leaks nothing', async () => {
    const app = new Hono<AppEnv>()
    app.onError(errorHandler(createLogger('silent', 'test'), 'http://api.test'))
    app.get('/down', () => {
      throw new Error('query failed', { cause: withCode('ECONNREFUSED', 'connect ECONNREFUSED 127.0.0.1:5432') })
    })
    app.get('/bug', () => {
      throw new Error('relation "secret_table" does not exist')
    })
    const down = await app.request('/down')
    expect(down.status).toBe(503)
    expect(down.headers.get('retry-after')).toBe('5')
    expect(await down.json()).toMatchObject({ code: 'dependency_unavailable', status: 503 })
    const bug = await app.request('/bug')
    expect(bug.status).toBe(500)
    expect(await bug.text()).not.toContain('secret_table')
  })
  it("logs what a 503 hides from the client (the dependency's own error), and answers the problem without it", async () => {
    const logger = createLogger('silent', 'test')
    const warn = vi.spyOn(logger, 'warn')
    const app = new Hono<AppEnv>()
    app.onError(errorHandler(logger, 'http://api.test'))
    const deadline = new Error('deadline exceeded after 10.001s')
    app.get('/slow', () => {
      throw dependencyUnavailable('The workflow service', deadline)
    })
    app.get('/refused', () => {
      throw new AppError(409, 'invalid_state_transition', 'Invalid state transition', { cause: deadline })
    })
    const slow = await app.request('/slow')
    expect(slow.status).toBe(503)
    expect(await slow.text()).not.toContain('deadline exceeded')
    expect(warn).toHaveBeenCalledTimes(1)
    expect(warn.mock.calls[0]).toEqual([
      expect.objectContaining({ route: '/slow', err: deadline }),
      'dependency unavailable',
    ])
    // A refusal is the client's to read, not an operator's.
    expect((await app.request('/refused')).status).toBe(409)
    expect(warn).toHaveBeenCalledTimes(1)
  })
})
