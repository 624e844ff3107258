/**
 * What Schemathesis found wrong in the served description (docs/testing.md): nullable references that forbade the
 * `null` the API sends (`/v1/sso-connections` answered `defaultRole: null` against
 * `allOf: [PlatformRole, {type: [string, null]}]`), a date-time pattern no value could match, and the 431 that Node's
 * HTTP server answers on its own (now a problem document, api/client-errors.ts).
 */
import { serve } from '@hono/node-server'
import type { Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createApp } from '../../../../api/app.ts'
import { answerClientErrors } from '../../../../api/client-errors.ts'
import { buildDeps } from '../../../../api/deps.ts'
import { fixNullableRefs } from '../../../../api/openapi/nullable-refs.ts'
import { loadConfig } from '../../../../infra/config.ts'
import { createLogger } from '../../../../infra/logger.ts'

describe('fixNullableRefs', () => {
  it('turns allOf [ref, nullable type] into anyOf [ref, null], keeping a description', () => {
    const doc = {
      a: { allOf: [{ $ref: '#/components/schemas/Role' }, { type: ['string', 'null'] }] },
      b: { allOf: [{ $ref: '#/components/schemas/Note' }, { type: ['object', 'null'], description: 'The note' }] },
      nested: [{ properties: { c: { allOf: [{ $ref: '#/x' }, { type: ['null'] }] } } }],
    }
    expect(fixNullableRefs(doc)).toEqual({
      a: { anyOf: [{ $ref: '#/components/schemas/Role' }, { type: 'null' }] },
      b: { description: 'The note', anyOf: [{ $ref: '#/components/schemas/Note' }, { type: 'null' }] },
      nested: [{ properties: { c: { anyOf: [{ $ref: '#/x' }, { type: 'null' }] } } }],
    })
  })

  it('leaves other allOf alone: a description beside a ref, an extension of a ref', () => {
    const described = { allOf: [{ $ref: '#/r' }, { description: 'Only this status' }] }
    const extended = {
      allOf: [{ $ref: '#/r' }, { type: 'object', properties: { secret: { type: 'string' } }, required: ['secret'] }],
    }
    const constrained = { allOf: [{ $ref: '#/r' }, { type: ['string', 'null'], maxLength: 3 }] }
    const doc = structuredClone({ described, extended, constrained })
    expect(fixNullableRefs(doc)).toEqual({ described, extended, constrained })
  })
})

describe('the served description', () => {
  let description: unknown
  let close: () => Promise<void>
  let app: ReturnType<typeof createApp>
  beforeAll(async () => {
    const config = loadConfig({ NODE_ENV: 'development', DATABASE_URL: 'postgresql://unused@127.0.0.1:1/unused' })
    const built = buildDeps(config, createLogger('silent', 'test'))
    close = built.close
    app = createApp(built.deps)
    description = await (await app.request('/openapi.json')).json()
  })
  afterAll(async () => {
    // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- unset when beforeAll failed before assigning it
    await close?.()
  })

  it('has no nullable reference left that forbids null', () => {
    const offending: string[] = []
    const walk = (value: unknown, path: string) => {
      if (Array.isArray(value)) return value.forEach((v, i) => walk(v, `${path}/${i}`))
      if (typeof value !== 'object' || value === null) return
      const allOf = (value as { allOf?: unknown[] }).allOf
      if (
        allOf?.some(
          (s) => Array.isArray((s as { type?: unknown }).type) && (s as { type: string[] }).type.includes('null')
        )
      ) {
        offending.push(path)
      }
      for (const [key, child] of Object.entries(value)) walk(child, `${path}/${key}`)
    }
    walk(description, '#')
    expect(offending).toEqual([])
  })

  it('publishes only patterns a value can match: every documented example matches its pattern', () => {
    // OFFSET_DATE_TIME had an `i` flag and came out as `...$/i`, which nothing matches (Schemathesis: Unsatisfiable).
    const checked: string[] = []
    const wrong: string[] = []
    const walk = (value: unknown, path: string) => {
      if (Array.isArray(value)) return value.forEach((v, i) => walk(v, `${path}/${i}`))
      if (typeof value !== 'object' || value === null) return
      const { pattern, example } = value as { pattern?: unknown; example?: unknown }
      if (typeof pattern === 'string') {
        if (/\/[dgimsuvy]+$/.test(pattern)) wrong.push(`${path}: pattern with flags ${pattern}`)
        if (typeof example === 'string') {
          if (!new RegExp(pattern, 'u').test(example)) wrong.push(`${path}: example ${example} against ${pattern}`)
          checked.push(path)
        }
      }
      for (const [key, child] of Object.entries(value)) walk(child, `${path}/${key}`)
    }
    walk(description, '#')
    expect(wrong).toEqual([])
    expect(checked.length).toBeGreaterThan(10)
  })

  it('keeps null out of every component: the references that allow null say so', () => {
    // `X.nullable()` carried X's component name, so a nullable X could become the component itself: PaymentFailureCode
    // listed null, and the payment create that references it then allowed `{"code": null}`, which the API refuses.
    const schemas = (description as { components: { schemas: Record<string, { type?: unknown; enum?: unknown[] }> } })
      .components.schemas
    const nullable = Object.entries(schemas)
      .filter(([, s]) => (Array.isArray(s.type) && s.type.includes('null')) || s.enum?.includes(null))
      .map(([name]) => name)
    expect(nullable).toEqual([])
    const payment = schemas.Payment as unknown as { properties: Record<string, unknown> }
    expect(payment.properties.failureCode).toEqual({
      anyOf: [{ $ref: '#/components/schemas/PaymentFailureCode' }, { type: 'null' }],
    })
  })

  it('describes an SSO connection without a default role as it is sent: defaultRole null', () => {
    const schemas = (
      description as { components: { schemas: Record<string, { properties: Record<string, unknown> }> } }
    ).components.schemas
    expect(schemas.SsoConnection!.properties.defaultRole).toEqual({
      anyOf: [{ $ref: '#/components/schemas/PlatformRole' }, { type: 'null' }],
    })
  })

  it('describes the 431 the HTTP server answers to an oversized request line, on every operation', async () => {
    // The server as api/start-api.ts runs it; the request never reaches the app, so nothing connects anywhere.
    const server = await new Promise<ReturnType<typeof serve>>((resolve) => {
      const s = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }, () => resolve(s))
    })
    answerClientErrors(server as Server, 'http://localhost:3000', createLogger('silent', 'test'))
    try {
      const { port } = server.address() as AddressInfo
      const response = await fetch(
        `http://127.0.0.1:${port}/v1/analytics/multi-location?locationIds=${'x'.repeat(20_000)}`
      )
      expect(response.status).toBe(431)
      expect(response.headers.get('content-type')).toBe('application/problem+json')
      const body = (await response.json()) as Record<string, unknown>
      expect(Object.keys(body).sort()).toEqual(['code', 'detail', 'requestId', 'status', 'title', 'type'])
      expect(body.requestId).toBe(response.headers.get('x-request-id'))
    } finally {
      await new Promise((resolve) => server.close(resolve))
    }
    const paths = (description as { paths: Record<string, Record<string, { responses?: Record<string, unknown> }>> })
      .paths
    for (const [path, item] of Object.entries(paths)) {
      for (const [method, operation] of Object.entries(item)) {
        if (!operation.responses) continue
        expect(operation.responses, `${method.toUpperCase()} ${path}`).toHaveProperty(
          ['431', 'content', 'application/problem+json', 'schema'],
          {
            $ref: '#/components/schemas/RequestHeadProblem',
          }
        )
      }
    }
  })
})
