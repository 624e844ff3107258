import { Writable } from 'node:stream'
import { Hono } from 'hono'
import { describe, expect, it } from 'vitest'
import type { AppEnv } from '../../../../api/app-env.ts'
import { accessLog } from '../../../../api/middleware/access-log.ts'
import { requestId } from '../../../../api/middleware/request-id.ts'
import { currentLogContext } from '../../../../infra/log-context.ts'
import { createLogger } from '../../../../infra/logger.ts'

function capture() {
  const lines: Array<Record<string, unknown>> = []
  const stream = new Writable({
    write(chunk, _encoding, done) {
      lines.push(JSON.parse(String(chunk)))
      done()
    },
  })
  return { lines, logger: createLogger('info', 'api', stream) }
}

describe('request logs', () => {
  it('carry the request id and the tenant on every line, the route pattern and never the body or query', async () => {
    const { lines, logger } = capture()
    const app = new Hono<AppEnv>()
      .use('*', requestId())
      .use('*', accessLog(logger))
      .use('*', async (_c, next) => {
        // What authentication does once the caller is known.
        currentLogContext()!.tenantId = 'ten_1'
        await next()
      })
      .post('/v1/children/:id', async (c) => {
        await new Promise((resolve) => setTimeout(resolve, 1))
        logger.warn({ childId: c.req.param('id') }, 'inside the handler')
        return c.json({ ok: true }, 201)
      })
    const response = await app.request('/v1/children/chd_1?firstName=Maya', {
      method: 'POST',
      headers: { 'X-Request-Id': 'req_abc', 'Content-Type': 'application/json' },
      body: JSON.stringify({ diagnosis: 'F80.1' }),
    })
    expect(response.status).toBe(201)
    await new Promise((resolve) => setImmediate(resolve))
    expect(lines).toHaveLength(2)
    for (const line of lines) expect(line).toMatchObject({ requestId: 'req_abc', tenantId: 'ten_1', role: 'api' })
    expect(lines[1]).toMatchObject({ msg: 'request', method: 'POST', route: '/v1/children/:id', status: 201 })
    const text = JSON.stringify(lines)
    expect(text).not.toContain('F80.1')
    expect(text).not.toContain('Maya')
  })

  it('keeps concurrent requests apart', async () => {
    const { lines, logger } = capture()
    const app = new Hono<AppEnv>().use('*', requestId()).get('/t/:tenant', async (c) => {
      currentLogContext()!.tenantId = c.req.param('tenant')
      await new Promise((resolve) => setTimeout(resolve, Math.random() * 5))
      logger.info('work')
      return c.text('ok')
    })
    await Promise.all(
      ['a', 'b', 'c', 'd'].map(async (t) => app.request(`/t/${t}`, { headers: { 'X-Request-Id': `req_${t}` } }))
    )
    await new Promise((resolve) => setImmediate(resolve))
    expect(lines).toHaveLength(4)
    for (const line of lines) expect(line.requestId).toBe(`req_${line.tenantId as string}`)
  })
})
