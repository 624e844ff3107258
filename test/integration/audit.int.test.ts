/**
 * The audit trail end to end, against real servers and the real database: every /v1 call leaves exactly one record
 * with the right fields, whatever its outcome; a write and its record commit together; the sealer chains records
 * without forks, even with several sealers at once and records that commit late; the application role cannot change
 * the trail or its chain; tampering is detected by the endpoint and the CLI at exactly the changed record; the list
 * filters and pages; and no tenant sees another's records.
 */
import { execFile } from 'node:child_process'
import { randomUUID } from 'node:crypto'
import http from 'node:http'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { Hono } from 'hono'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { AppEnv } from '../../api/app-env.ts'
import { auditTrail } from '../../api/middleware/audit.ts'
import { appendAuditEvent } from '../../domain/audit/append-audit-event.ts'
import type { AuditEntry } from '../../domain/audit/audit-event.ts'
import { listAuditEvents } from '../../domain/audit/list-audit-events.ts'
import { sealPending } from '../../domain/audit/seal-audit-events.ts'
import { verifyTenantChain } from '../../domain/audit/verify-chain.ts'
import { errorHandler } from '../../api/middleware/error-handler.ts'
import { requestId } from '../../api/middleware/request-id.ts'
import { handlerSavepoint, unitOfWork } from '../../api/middleware/unit-of-work.ts'
import { createChild } from '../../domain/children/child-service.ts'
import { conflict } from '../../domain/errors.ts'
import type { ProvisionedClient } from '../../domain/tenants/provision-client.ts'
import type { Tx } from '../../infra/db.ts'
import { runInUnitOfWork } from '../../infra/unit-of-work.ts'
import type { HttpResponse, RequestOptions } from '../support/http.ts'
import { startPlatform, type Platform, databaseEnvOf } from '../support/platform.ts'

const ROOT = fileURLToPath(new URL('../..', import.meta.url))
const run = promisify(execFile)

let platform: Platform
let clientA: ProvisionedClient
let tokenA: string
let clientB: ProvisionedClient
let tokenB: string

const newRequestId = () => `req_audit_${randomUUID().replace(/-/g, '')}`

/** A call with a known request id, so its record can be found. */
async function call(method: string, path: string, options: RequestOptions = {}) {
  const id = newRequestId()
  const headers = { 'X-Request-Id': id, ...options.headers }
  const response = await platform.http.request(method, path, { ...options, headers })
  expect(response.headers.get('x-request-id')).toBe(id)
  return { response, requestId: id }
}

/** The records of a request, read as the login role (no row-level security). */
const recordsOf = (id: string) => platform.api.deps.db.auditEvent.findMany({ where: { requestId: id } })

/** Seals every committed record now, as the API's sealer does every AUDIT_SEAL_INTERVAL_MS. */
const sealAll = () => sealPending(platform.api.deps.db)

/** The chain link of a record, once sealed. */
const linkOf = (eventId: string) => platform.api.deps.db.auditChainLink.findUnique({ where: { eventId } })

/** The seqs of a tenant's chain, in order. */
const chainSeqs = async (tenantId: string) =>
  (await platform.api.deps.db.auditChainLink.findMany({ where: { tenantId }, orderBy: { seq: 'asc' } })).map((l) =>
    Number(l.seq)
  )

async function onlyRecordOf(id: string) {
  const records = await recordsOf(id)
  expect(records).toHaveLength(1)
  return records[0]!
}

/** A record of a call made outside HTTP, for appending directly. */
const entryFor = (tenantId: string, occurredAt: Date, path: string): AuditEntry => ({
  tenantId,
  occurredAt,
  actorType: 'anonymous',
  actorId: null,
  locationId: null,
  method: 'GET',
  route: '',
  path,
  resourceType: null,
  resourceId: null,
  status: 404,
  requestId: newRequestId(),
  clientIp: null,
  userAgent: null,
  latencyMs: 1,
})

/**
 * A fresh tenant, so its chain holds only this test's calls. Its token comes from the token service itself: a request
 * to /oauth/token is on the tenant's trail too (test/integration/audit-oauth-codec.int.test.ts).
 */
async function freshTenant(scopes: string[] = ['children', 'providers', 'bookings', 'audit']) {
  const client = await platform.newTenant(scopes)
  const credentials = { clientId: client.client_id, clientSecret: client.client_secret }
  return { client, token: (await platform.api.deps.tokens.clientCredentials(credentials)).access_token }
}

const listAudit = (token: string, query = '') => platform.http.get(`/v1/audit-events${query}`, { token })

/** Every record of a list, page by page. */
async function listAll(token: string, query: string, limit = 2) {
  const seen: Array<Record<string, unknown>> = []
  let cursor: string | null = null
  let pages = 0
  do {
    const separator = query ? '&' : ''
    const cursorParam: string = cursor ? `&cursor=${cursor}` : ''
    const page: HttpResponse = await listAudit(token, `?limit=${limit}${separator}${query}${cursorParam}`)
    expect(page.status).toBe(200)
    expect(page.body.data.length).toBeLessThanOrEqual(limit)
    seen.push(...page.body.data)
    cursor = page.body.nextCursor
    pages += 1
  } while (cursor && pages < 100)
  return { seen, pages }
}

beforeAll(async () => {
  platform = await startPlatform({ withWorker: false })
  clientA = await platform.newTenant(['children', 'providers', 'bookings', 'audit'])
  clientB = await platform.newTenant(['children', 'audit'])
  ;[tokenA, tokenB] = await Promise.all([platform.token(clientA), platform.token(clientB)])
})

afterAll(async () => {
  // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- unset when beforeAll failed before assigning it
  await platform?.stop()
})

describe('every call is recorded', () => {
  it('records a write with its route, created resource, location, actor, address, agent and latency', async () => {
    const before = Date.now()
    const { response, requestId } = await call('POST', '/v1/children', {
      token: tokenA,
      headers: { 'User-Agent': 'audit-test/1.0' },
      body: { firstName: 'Ada', lastName: 'Quinn', dateOfBirth: '2022-01-02' },
    })
    expect(response.status).toBe(201)
    const record = await onlyRecordOf(requestId)
    expect(record).toMatchObject({
      tenantId: clientA.tenantId,
      actorType: 'client',
      actorId: clientA.client_id,
      locationId: response.body.locationId,
      method: 'POST',
      route: '/v1/children',
      path: '/v1/children',
      resourceType: 'children',
      resourceId: response.body.id,
      status: 201,
      requestId,
      clientIp: '127.0.0.1',
      userAgent: 'audit-test/1.0',
    })
    expect(record.locationId).toMatch(/^loc_/)
    expect(record.latencyMs).toBeGreaterThanOrEqual(0)
    expect(record.occurredAt.getTime()).toBeGreaterThanOrEqual(before - 5)
    expect(record.occurredAt.getTime()).toBeLessThanOrEqual(Date.now())
    await sealAll()
    expect((await linkOf(record.id))?.hash).toMatch(/^[0-9a-f]{64}$/)
  })

  it('records a read of a health record and a read of one that does not exist', async () => {
    const created = await platform.http.post('/v1/children', {
      token: tokenA,
      body: { firstName: 'Bea', lastName: 'Ross', dateOfBirth: '2021-03-04' },
    })
    const read = await call('GET', `/v1/children/${created.body.id}`, { token: tokenA })
    expect(read.response.status).toBe(200)
    expect(await onlyRecordOf(read.requestId)).toMatchObject({
      method: 'GET',
      route: '/v1/children/:id',
      path: `/v1/children/${created.body.id}`,
      resourceType: 'children',
      resourceId: created.body.id,
      locationId: created.body.locationId,
      status: 200,
      actorId: clientA.client_id,
    })

    const missing = await call('GET', '/v1/children/chd_missing', { token: tokenA })
    expect(missing.response.status).toBe(404)
    expect(await onlyRecordOf(missing.requestId)).toMatchObject({
      route: '/v1/children/:id',
      resourceId: 'chd_missing',
      locationId: null,
      status: 404,
      tenantId: clientA.tenantId,
    })
  })

  it('records a refused write (400, 409) and the refused write leaves no data', async () => {
    const tenant = await freshTenant()
    const invalid = await call('POST', '/v1/children', {
      token: tenant.token,
      body: { firstName: 'Cy', lastName: 'Day', dateOfBirth: '2999-01-01' },
    })
    expect(invalid.response.status).toBe(400)
    expect(await onlyRecordOf(invalid.requestId)).toMatchObject({ status: 400, method: 'POST', resourceId: null })
    expect(await platform.api.deps.db.child.count({ where: { tenantId: tenant.client.tenantId } })).toBe(0)

    const child = await platform.http.post('/v1/children', {
      token: tenant.token,
      body: { firstName: 'Cy', lastName: 'Day', dateOfBirth: '2020-01-01' },
    })
    const provider = await platform.http.post('/v1/providers', {
      token: tenant.token,
      body: { name: 'Eve Fox', timeZone: 'UTC' },
    })
    const startsAt = new Date(Date.now() + 5 * 24 * 3600 * 1000)
    startsAt.setUTCHours(10, 0, 0, 0)
    const body = { childId: child.body.id, providerId: provider.body.id, startsAt: startsAt.toISOString() }
    expect((await platform.http.post('/v1/appointments', { token: tenant.token, body })).status).toBe(201)
    const clash = await call('POST', '/v1/appointments', { token: tenant.token, body })
    expect(clash.response.status).toBe(409)
    expect(await onlyRecordOf(clash.requestId)).toMatchObject({ status: 409, route: '/v1/appointments' })
    expect(await platform.api.deps.db.appointment.count({ where: { tenantId: tenant.client.tenantId } })).toBe(1)
  })

  it('records calls refused for their credentials: 401 on the platform chain, 403 on the tenant chain', async () => {
    const anonymous = await call('GET', '/v1/children/chd_x', { headers: { 'User-Agent': 'no-token' } })
    expect(anonymous.response.status).toBe(401)
    expect(await onlyRecordOf(anonymous.requestId)).toMatchObject({
      tenantId: 'platform',
      actorType: 'anonymous',
      actorId: null,
      route: '/v1/children/:id',
      resourceId: 'chd_x',
      status: 401,
      userAgent: 'no-token',
    })
    const forged = await call('GET', '/v1/children', { token: 'not.a.token' })
    expect(forged.response.status).toBe(401)
    expect(await onlyRecordOf(forged.requestId)).toMatchObject({ tenantId: 'platform', actorType: 'anonymous' })

    const withoutAudit = await freshTenant(['children'])
    const unscoped = await call('GET', '/v1/audit-events', { token: withoutAudit.token })
    expect(unscoped.response.status).toBe(403)
    const record = await onlyRecordOf(unscoped.requestId)
    expect(record.status).toBe(403)
    expect(record).toMatchObject({
      tenantId: withoutAudit.client.tenantId,
      actorType: 'client',
      resourceType: 'audit-events',
    })
  })

  it('records a request refused before its transaction began (413) on its tenant chain', async () => {
    // Its own connection: the server closes it after refusing a body it did not read, which would break the next
    // request of a pooled connection.
    const id = newRequestId()
    const status = await new Promise<number>((resolve, reject) => {
      const request = http.request(`${platform.api.url}/v1/children`, {
        method: 'POST',
        agent: false,
        headers: { Authorization: `Bearer ${tokenA}`, 'Content-Type': 'application/json', 'X-Request-Id': id },
      })
      request.on('response', (response) => {
        response.resume()
        resolve(response.statusCode ?? 0)
      })
      request.on('error', reject)
      request.end(`{"firstName":"${'x'.repeat(platform.config.REQUEST_BODY_LIMIT_BYTES + 1)}"}`)
    })
    expect(status).toBe(413)
    expect(await onlyRecordOf(id)).toMatchObject({
      tenantId: clientA.tenantId,
      actorId: clientA.client_id,
      status: 413,
    })
  })

  it('records an unknown /v1 route with an empty route template', async () => {
    const unknown = await call('GET', '/v1/nothing-here', { token: tokenA })
    expect(unknown.response.status).toBe(404)
    const record = await onlyRecordOf(unknown.requestId)
    expect(record).toMatchObject({ route: '', resourceType: null, path: '/v1/nothing-here' })
  })

  it('stores non-ASCII text exactly as it hashes it, so its chain verifies', async () => {
    const tenant = await freshTenant()
    const odd = await call('GET', '/v1/children/chd_%C3%A9t%C3%A9%F0%9F%98%80', {
      token: tenant.token,
      headers: { 'User-Agent': 'Navigateur (\u00fc\u00e9)' },
    })
    expect(odd.response.status).toBe(404)
    expect(await onlyRecordOf(odd.requestId)).toMatchObject({ resourceId: 'chd_été😀', userAgent: 'Navigateur (üé)' })
    const verify = await platform.http.get('/v1/audit-events/verify', { token: tenant.token })
    expect(verify.body).toMatchObject({ valid: true, checked: 1 })
  })

  it('keeps one unforked chain under concurrent calls of one tenant, sealed while they run', async () => {
    const tenant = await freshTenant()
    const responses = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        i % 2
          ? platform.http.get('/v1/providers', { token: tenant.token })
          : platform.http.post('/v1/providers', { token: tenant.token, body: { name: `P${i}`, timeZone: 'UTC' } })
      )
    )
    expect(responses.map((r) => r.status).sort()).toEqual([...Array(10).fill(200), ...Array(10).fill(201)])
    await sealAll()
    expect(await chainSeqs(tenant.client.tenantId)).toEqual(Array.from({ length: 20 }, (_, i) => i + 1))
    const verify = await platform.http.get('/v1/audit-events/verify', { token: tenant.token })
    expect(verify.body).toMatchObject({ valid: true, checked: 20, firstBrokenLink: null, head: { seq: 20 } })
  })
})

describe('a write and its record commit together', () => {
  // The real middleware chain over the real database, with routes that fail on purpose after writing.
  function appWithFailingWrites(client: ProvisionedClient) {
    const { deps } = platform.api
    const audit = auditTrail(deps)
    const app = new Hono<AppEnv>()
    app.onError(errorHandler(deps.logger, deps.config.PUBLIC_URL))
    app.use('*', requestId())
    app.use(
      '/v1/*',
      audit.record,
      async (c, next) => {
        const { tenantId, client_id: clientId } = client
        c.set('principal', { kind: 'client', tenantId, clientId, actorId: clientId, scopes: [], tokenId: 'jti_t' })
        await next()
      },
      unitOfWork(deps.db),
      audit.inTransaction,
      handlerSavepoint()
    )
    app.post('/v1/children', async (c) => {
      const input = { firstName: 'Gil', lastName: c.req.query('name')!, dateOfBirth: '2020-02-02' }
      const child = await createChild(c.var.uow, input, new Date())
      if (c.req.query('fail') === '409') throw conflict('Refused after writing.')
      if (c.req.query('fail') === '500') throw new Error('crashed after writing')
      return c.json({ id: child.id, locationId: child.locationId }, 201)
    })
    return app
  }

  it('commits a write with its record, and keeps the record of a failed write but not the write', async () => {
    const tenant = await freshTenant()
    const app = appWithFailingWrites(tenant.client)
    const [ok, refused, crashed] = await Promise.all(
      ['none', '409', '500'].map(async (fail) => {
        const name = `Hill-${randomUUID()}`
        const id = newRequestId()
        const response = await app.request(`/v1/children?fail=${fail}&name=${name}`, {
          method: 'POST',
          headers: { 'X-Request-Id': id },
        })
        return { status: response.status, requestId: id, name }
      })
    )
    expect([ok!.status, refused!.status, crashed!.status]).toEqual([201, 409, 500])
    const children = await platform.api.deps.db.child.findMany({ where: { tenantId: tenant.client.tenantId } })
    expect(children.map((c) => c.lastName)).toEqual([ok!.name])

    expect(await onlyRecordOf(ok!.requestId)).toMatchObject({ status: 201, resourceId: children[0]!.id })
    expect(await onlyRecordOf(refused!.requestId)).toMatchObject({ status: 409, resourceId: null })
    // The 500 rolled the request's transaction back, record included; the record was written afterwards.
    expect(await onlyRecordOf(crashed!.requestId)).toMatchObject({ status: 500, tenantId: tenant.client.tenantId })
    const verify = await platform.http.get('/v1/audit-events/verify', { token: tenant.token })
    expect(verify.body).toMatchObject({ valid: true, checked: 3 })
  })
})

describe('no write commits without its record', () => {
  /** Injects a fault into the database for the duration of `work`: audit inserts of calls made by `agent` fail. */
  async function refusingAuditOf<T>(agent: string, work: () => Promise<T>): Promise<T> {
    const { db } = platform
    const suffix = randomUUID().replace(/-/g, '').slice(0, 12)
    await db.$executeRawUnsafe(`CREATE FUNCTION refuse_audit_${suffix}() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF NEW.user_agent = '${agent}' THEN RAISE EXCEPTION 'audit insert refused by the test'; END IF;
        RETURN NEW;
      END $$`)
    await db.$executeRawUnsafe(`CREATE TRIGGER refuse_audit_${suffix} BEFORE INSERT ON audit_events
      FOR EACH ROW EXECUTE FUNCTION refuse_audit_${suffix}()`)
    try {
      return await work()
    } finally {
      await db.$executeRawUnsafe(`DROP TRIGGER refuse_audit_${suffix} ON audit_events`)
      await db.$executeRawUnsafe(`DROP FUNCTION refuse_audit_${suffix}()`)
    }
  }

  it('answers a read with an error, not its data, when its record cannot be written', async () => {
    const agent = `refuse-audit-${randomUUID()}`
    const child = await call('POST', '/v1/children', {
      token: tokenA,
      body: { firstName: 'Ro', lastName: 'Read', dateOfBirth: '2020-01-01' },
    })
    const { response, requestId } = await refusingAuditOf(agent, () =>
      call('GET', `/v1/children/${child.response.body.id}`, { token: tokenA, headers: { 'User-Agent': agent } })
    )
    expect(response.status).toBe(500)
    expect(response.body.code).toBe('internal_error')
    expect(JSON.stringify(response.body)).not.toContain('Read')
    expect(await recordsOf(requestId)).toEqual([])
  })

  it('fails only the read whose record is refused, not the concurrent reads whose records go with it', async () => {
    const agent = `refuse-audit-${randomUUID()}`
    const child = await call('POST', '/v1/children', {
      token: tokenA,
      body: { firstName: 'Gu', lastName: 'Group', dateOfBirth: '2020-01-01' },
    })
    const path = `/v1/children/${child.response.body.id}`
    // Concurrent reads of one tenant share group inserts (domain/audit/audit-writer.ts).
    const calls = await refusingAuditOf(agent, () =>
      Promise.all([
        call('GET', path, { token: tokenA }),
        call('GET', path, { token: tokenA, headers: { 'User-Agent': agent } }),
        ...Array.from({ length: 10 }, () => call('GET', path, { token: tokenA })),
      ])
    )
    expect(calls.map((c) => c.response.status)).toEqual([200, 500, ...Array.from({ length: 10 }, () => 200)])
    for (const [i, { requestId }] of calls.entries())
      expect(await recordsOf(requestId), `call ${i}`).toHaveLength(i === 1 ? 0 : 1)
  })

  it('fails the request and rolls the write back when its record cannot be appended', async () => {
    const { db } = platform.api.deps
    const agent = `refuse-audit-${randomUUID()}`
    const suffix = randomUUID().replace(/-/g, '').slice(0, 12)
    await refusingAuditOf(agent, async () => {
      const lastName = `Refused-${suffix}`
      const { response, requestId } = await call('POST', '/v1/children', {
        token: tokenA,
        headers: { 'User-Agent': agent },
        body: { firstName: 'Jo', lastName, dateOfBirth: '2020-01-01' },
      })
      expect(response.status).toBe(500)
      expect(await db.child.count({ where: { lastName } })).toBe(0)
      expect(await recordsOf(requestId)).toEqual([])
    })
  })
})

describe('sealing', () => {
  it('never forks a chain when several sealers run at once', async () => {
    const { db } = platform.api.deps
    for (let round = 0; round < 3; round++) {
      const tenant = await freshTenant()
      const { tenantId } = tenant.client
      // Committed together, so every sealer below (and the API's own) finds all of them unsealed at once.
      const base = Date.now() - 1000
      await runInUnitOfWork(db, tenantId, async (uow) => {
        for (let i = 0; i < 40; i++) {
          await appendAuditEvent(uow, entryFor(tenantId, new Date(base + (i % 7)), `/v1/x${i}`))
        }
      })
      const one = { tenantId }
      await Promise.all([sealPending(db), sealPending(db, one), sealPending(db, one), sealPending(db)])
      expect(await chainSeqs(tenantId)).toEqual(Array.from({ length: 40 }, (_, i) => i + 1))
      expect(await db.auditChainLink.count({ where: { tenantId } })).toBe(40)
      const report = await verifyTenantChain((work) => runInUnitOfWork(db, tenantId, work))
      expect(report).toMatchObject({ valid: true, checked: 40, unsealed: 0, staleUnsealed: 0 })
    }
  })

  it('gives a record that commits late the next seq, and reports records the sealer has left behind', async () => {
    const tenant = await freshTenant()
    const { db } = platform.api.deps
    const { tenantId } = tenant.client
    for (let i = 0; i < 3; i++) await platform.http.get('/v1/providers', { token: tenant.token })
    await sealAll()
    const sealed = await chainSeqs(tenantId)
    expect(sealed).toEqual([1, 2, 3])

    // A request that arrived two minutes ago commits only now, after later records were sealed. Before it is
    // sealed, a verification that does not seal (is the sealer running?) calls it stale.
    const late = await runInUnitOfWork(db, tenantId, async (uow) => {
      const record = await appendAuditEvent(uow, entryFor(tenantId, new Date(Date.now() - 120_000), '/v1/late'))
      const report = await verifyTenantChain((work) => work(uow), { seal: false })
      expect(report).toMatchObject({ valid: false, checked: 3, firstBrokenLink: null, unsealed: 1, staleUnsealed: 1 })
      return record
    })
    await sealAll()
    expect((await linkOf(late.id))?.seq).toBe(4n)
    const verify = await platform.http.get('/v1/audit-events/verify', { token: tenant.token })
    expect(verify.body).toMatchObject({ valid: true, checked: 4, head: { seq: 4 }, staleUnsealed: 0 })
  })
})

describe('the sealing queue', () => {
  it('queues every record as it commits, releases it when it is sealed, and verification still finds one taken off it', async () => {
    const tenant = await freshTenant()
    const { db } = platform
    const { tenantId } = tenant.client
    const queued = () => db.auditUnsealed.findMany({ where: { tenantId }, select: { eventId: true } })
    // A record written by any path, here one inserted by hand as the login role, is queued by the trigger.
    const [byHand] = await db.$transaction(async (tx) => {
      await tx.$executeRaw`SELECT set_config('app.tenant_id', ${tenantId}, true), set_config('role', 'therapy_app', true)`
      return [
        await tx.auditEvent.create({
          data: { id: `aud_hand${Date.now()}`, ...entryFor(tenantId, new Date(), '/v1/hand') },
        }),
      ]
    })
    await platform.http.get('/v1/providers', { token: tenant.token })
    const waiting = await db.auditEvent.findMany({ where: { tenantId }, select: { id: true } })
    expect(waiting.map((e) => e.id)).toContain(byHand.id)
    // The API's own sealer may already have sealed some; whatever is not sealed is queued, and nothing else is.
    const links = async () =>
      (await db.auditChainLink.findMany({ where: { tenantId }, select: { eventId: true } })).map((l) => l.eventId)
    expect(new Set([...(await queued()).map((q) => q.eventId), ...(await links())])).toEqual(
      new Set(waiting.map((e) => e.id))
    )

    await sealAll()
    expect(await queued()).toEqual([])
    expect(new Set(await links())).toEqual(new Set(waiting.map((e) => e.id)))

    // Taken off the queue unsealed (as the login role could): the sealer no longer sees it, verification does.
    const skipped = await runInUnitOfWork(db, tenantId, (uow) =>
      appendAuditEvent(uow, entryFor(tenantId, new Date(Date.now() - 120_000), '/v1/skipped'))
    )
    await db.auditUnsealed.delete({ where: { eventId: skipped.id } })
    await sealAll()
    expect(await linkOf(skipped.id)).toBeNull()
    const verify = await platform.http.get('/v1/audit-events/verify', { token: tenant.token })
    expect(verify.body).toMatchObject({ valid: false, unsealed: 1, staleUnsealed: 1 })
  })
})

describe('the trail is append-only', () => {
  it('refuses UPDATE, DELETE and TRUNCATE by the application role, and UPDATE and DELETE by anyone', async () => {
    const { db } = platform.api.deps
    const tenantId = clientA.tenantId
    const asApp = <T>(statement: (tx: Tx) => Promise<T>) => runInUnitOfWork(db, tenantId, ({ tx }) => statement(tx))

    expect(await db.auditEvent.count({ where: { tenantId } })).toBeGreaterThan(0)
    const update = (tx: Tx) => tx.$executeRaw`UPDATE audit_events SET status = 200 WHERE tenant_id = ${tenantId}`
    const remove = (tx: Tx) => tx.$executeRaw`DELETE FROM audit_events WHERE tenant_id = ${tenantId}`
    await expect(asApp(update)).rejects.toThrow(/permission denied/i)
    await expect(asApp(remove)).rejects.toThrow(/permission denied/i)
    await expect(asApp((tx) => tx.$executeRaw`TRUNCATE audit_events`)).rejects.toThrow(/permission denied/i)
    // The tables' owner (a superuser on PGlite) meets the trigger; the platform's own logins are refused before it.
    await expect(update(platform.db)).rejects.toThrow(/append-only/)
    await expect(remove(platform.db)).rejects.toThrow(/append-only/)
    // The application role may append to and read its own tenant's records.
    const own = await asApp((tx) => tx.auditEvent.count())
    expect(own).toBe(await db.auditEvent.count({ where: { tenantId } }))
  })

  it('refuses the same on the chain, which the application role may only read and append to', async () => {
    const { db } = platform.api.deps
    const tenantId = clientA.tenantId
    await sealAll()
    const asApp = <T>(statement: (tx: Tx) => Promise<T>) => runInUnitOfWork(db, tenantId, ({ tx }) => statement(tx))
    const update = (tx: Tx) => tx.$executeRaw`UPDATE audit_chain SET hash = 'x' WHERE tenant_id = ${tenantId}`
    const remove = (tx: Tx) => tx.$executeRaw`DELETE FROM audit_chain WHERE tenant_id = ${tenantId}`
    await expect(asApp(update)).rejects.toThrow(/permission denied/i)
    await expect(asApp(remove)).rejects.toThrow(/permission denied/i)
    await expect(asApp((tx) => tx.$executeRaw`TRUNCATE audit_chain`)).rejects.toThrow(/permission denied/i)
    await expect(update(db)).rejects.toThrow(/audit_chain is append-only/)
    await expect(remove(db)).rejects.toThrow(/audit_chain is append-only/)
    const own = await asApp((tx) => tx.auditChainLink.count())
    expect(own).toBeGreaterThan(0)
    expect(own).toBe(await db.auditChainLink.count({ where: { tenantId } }))
    // Row-level security: another tenant's links are invisible and cannot be appended to.
    const other = clientB.tenantId
    expect(await asApp((tx) => tx.auditChainLink.count({ where: { tenantId: other } }))).toBe(0)
    await expect(
      asApp(
        (tx) => tx.$executeRaw`INSERT INTO audit_chain (tenant_id, seq, event_id, prev_hash, hash)
        VALUES (${other}, 999999, 'aud_nope', 'x', 'x')`
      )
    ).rejects.toThrow(/row-level security/i)
  })
})

describe('tamper evidence', () => {
  const cli = (tenantId: string) =>
    run(process.execPath, ['--import', 'tsx', 'scripts/cli.ts', 'audit', 'verify', '--tenant', tenantId], {
      cwd: ROOT,
      env: { ...process.env, ...databaseEnvOf(platform.config) },
    }).then(
      ({ stdout }) => ({ code: 0, report: JSON.parse(stdout) }),
      (error: { code: number; stdout: string }) => ({ code: error.code, report: JSON.parse(error.stdout) })
    )

  it('reports exactly the changed record as the first broken link, over the API and the CLI', async () => {
    const tenant = await freshTenant()
    for (let i = 0; i < 4; i++) await platform.http.get('/v1/providers', { token: tenant.token })
    const intact = await platform.http.get('/v1/audit-events/verify', { token: tenant.token })
    expect(intact.status).toBe(200)
    expect(intact.body).toMatchObject({ valid: true, checked: 4, firstBrokenLink: null })
    const cliIntact = await cli(tenant.client.tenantId)
    expect(cliIntact.code).toBe(0)
    expect(cliIntact.report).toMatchObject({ valid: true, checked: 5 })

    // An operator with DDL rights goes around the trigger: the change commits, but the chain exposes it.
    const { db } = platform
    const tenantId = tenant.client.tenantId
    const third = await db.auditChainLink.findUniqueOrThrow({ where: { tenantId_seq: { tenantId, seq: 3 } } })
    await db.$transaction([
      db.$executeRaw`ALTER TABLE audit_events DISABLE TRIGGER audit_events_append_only`,
      db.$executeRaw`UPDATE audit_events SET status = 201 WHERE id = ${third.eventId}`,
      db.$executeRaw`ALTER TABLE audit_events ENABLE TRIGGER audit_events_append_only`,
    ])
    const tampered = { ...(await db.auditEvent.findUniqueOrThrow({ where: { id: third.eventId } })), hash: third.hash }
    expect(tampered.status).toBe(201)

    const broken = await platform.http.get('/v1/audit-events/verify', { token: tenant.token })
    expect(broken.status).toBe(200)
    expect(broken.body).toMatchObject({
      valid: false,
      checked: 3,
      firstBrokenLink: { seq: 3, id: tampered.id, reason: 'hash_mismatch', found: tampered.hash },
      head: null,
    })
    expect(broken.body.firstBrokenLink.expected).toMatch(/^[0-9a-f]{64}$/)
    expect(broken.body.firstBrokenLink.expected).not.toBe(tampered.hash)

    const cliBroken = await cli(tenantId)
    expect(cliBroken.code).toBe(1)
    // The CLI reads after the endpoint's call committed: the same break, perhaps one record sealed since.
    expect({ ...cliBroken.report, unsealed: 0 }).toEqual({ ...broken.body, unsealed: 0 })
  })
})

describe('GET /v1/audit-events', () => {
  let tenant: { client: ProvisionedClient; token: string }
  let childId: string
  let between: { from: string; to: string }

  beforeAll(async () => {
    tenant = await freshTenant()
    const child = await platform.http.post('/v1/children', {
      token: tenant.token,
      body: { firstName: 'Ida', lastName: 'Lee', dateOfBirth: '2020-05-06' },
    })
    childId = child.body.id
    await platform.http.get(`/v1/children/${childId}`, { token: tenant.token })
    await new Promise((resolve) => setTimeout(resolve, 20))
    const from = new Date().toISOString()
    await platform.http.get('/v1/children/chd_nope1', { token: tenant.token })
    await platform.http.get('/v1/children/chd_nope2', { token: tenant.token })
    const to = new Date(Date.now() + 1).toISOString()
    between = { from, to }
    await new Promise((resolve) => setTimeout(resolve, 20))
    await platform.http.post('/v1/children', { token: tenant.token, body: { firstName: '' } })
    await sealAll()
  })

  it('answers records in the documented shape, newest first', async () => {
    const page = await listAudit(tenant.token, '?limit=5')
    expect(page.status).toBe(200)
    const [newest, ...rest] = page.body.data
    const { tenantId } = tenant.client
    expect(newest).toMatchObject({ method: 'POST', status: 400, route: '/v1/children', tenantId })
    expect(newest.occurredAt).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/)
    expect(typeof newest.seq).toBe('number')
    expect(newest.prevHash).toBe(rest[0].hash)
    expect(page.body.data.map((e: { seq: number }) => e.seq)).toEqual([5, 4, 3, 2, 1])
    expect(rest.at(-1).prevHash).toBe('0'.repeat(64))
    expect(Object.keys(newest).sort()).toEqual(
      [
        'id',
        'tenantId',
        'seq',
        'occurredAt',
        'actorType',
        'actorId',
        'locationId',
        'method',
        'route',
        'path',
        'resourceType',
        'resourceId',
        'status',
        'requestId',
        'clientIp',
        'userAgent',
        'latencyMs',
        'prevHash',
        'hash',
      ].sort()
    )
  })

  it('filters by status, resource, actor, method and time range', async () => {
    const byStatus = await listAudit(tenant.token, '?status=404')
    expect(byStatus.body.data.map((e: { resourceId: string }) => e.resourceId)).toEqual(['chd_nope2', 'chd_nope1'])

    const byResource = await listAudit(tenant.token, `?resourceId=${childId}`)
    expect(byResource.body.data.map((e: { method: string; status: number }) => [e.method, e.status])).toEqual([
      ['GET', 200],
      ['POST', 201],
    ])
    const byType = await listAudit(tenant.token, '?resourceType=children&method=POST')
    expect(byType.body.data.map((e: { status: number }) => e.status)).toEqual([400, 201])

    const byActor = await listAudit(tenant.token, `?actorId=${tenant.client.client_id}&limit=100`)
    expect(byActor.body.data.length).toBeGreaterThanOrEqual(5)
    expect(byActor.body.data.every((e: { actorId: string }) => e.actorId === tenant.client.client_id)).toBe(true)
    expect((await listAudit(tenant.token, '?actorId=cli_someone_else')).body.data).toEqual([])

    const inRange = await listAudit(tenant.token, `?from=${between.from}&to=${between.to}`)
    expect(inRange.body.data.map((e: { resourceId: string }) => e.resourceId)).toEqual(['chd_nope2', 'chd_nope1'])
  })

  it('pages with an opaque cursor in both orders without skipping or repeating', async () => {
    const newestFirst = await listAll(tenant.token, 'status=404')
    expect(newestFirst.seen.map((e) => e.resourceId)).toEqual(['chd_nope2', 'chd_nope1'])
    expect(newestFirst.pages).toBe(1)

    const { db } = platform.api.deps
    const { tenantId } = tenant.client
    /** The tenant's records in (occurredAt, id) order, as the database has them. */
    const stored = async () =>
      (await db.auditEvent.findMany({ where: { tenantId }, orderBy: [{ occurredAt: 'asc' }, { id: 'asc' }] })).map(
        (e) => e.id
      )
    const all = await listAll(tenant.token, 'sort=occurredAt', 2)
    const ids = all.seen.map((e) => e.id as string)
    // Listing is audited too, so the trail grows while it is read; oldest first sees those records as well.
    expect(all.seen.slice(0, 5).map((e) => e.seq)).toEqual([1, 2, 3, 4, 5])
    expect((await stored()).slice(0, ids.length)).toEqual(ids)
    expect(all.pages).toBeGreaterThan(2)

    const desc = await listAll(tenant.token, '', 3)
    const descIds = desc.seen.map((e) => e.id as string)
    const upToFirst = await stored()
    expect(descIds).toEqual(upToFirst.slice(0, upToFirst.indexOf(descIds[0]!) + 1).reverse())
    expect(desc.seen.at(-1)!.seq).toBe(1)
  })

  it('lists a record as soon as it commits, with its chain fields null until it is sealed', async () => {
    const fresh = await freshTenant()
    const { db } = platform.api.deps
    const { tenantId } = fresh.client
    // Committed but not sealed: inserted and listed in one transaction, which no sealer can see into.
    const listed = await runInUnitOfWork(db, tenantId, async (uow) => {
      const entry = await appendAuditEvent(uow, entryFor(tenantId, new Date(), '/v1/unsealed'))
      const page = await listAuditEvents(uow, { limit: 5, sort: '-occurredAt' })
      return page.data.find((e) => e.id === entry.id)
    })
    expect(listed).toMatchObject({ path: '/v1/unsealed', seq: null, prevHash: null, hash: null })
    await sealAll()
    const page = await listAudit(fresh.token, '?sort=occurredAt&limit=1')
    expect(page.body.data[0]).toMatchObject({ path: '/v1/unsealed', seq: 1, prevHash: '0'.repeat(64) })
  })

  it('refuses a foreign cursor, a cursor of the other order and an empty range', async () => {
    expect((await listAudit(tenant.token, '?cursor=bogus')).body.errors[0]).toMatchObject({ path: 'cursor' })
    const page = await listAudit(tenant.token, '?limit=1')
    const other = await listAudit(tenant.token, `?limit=1&sort=occurredAt&cursor=${page.body.nextCursor}`)
    expect(other.status).toBe(400)
    const empty = await listAudit(tenant.token, `?from=${between.to}&to=${between.from}`)
    expect(empty.status).toBe(400)
    expect(empty.body.code).toBe('validation_error')
    expect((await listAudit(tenant.token, '?status=abc')).status).toBe(400)
  })

  it("never shows another tenant's records", async () => {
    expect((await platform.http.get('/v1/children/chd_of_b', { token: tokenB })).status).toBe(404)
    const other = await listAll(tokenB, '', 100)
    expect(other.seen.length).toBeGreaterThan(0)
    expect(other.seen.every((e) => e.tenantId === clientB.tenantId)).toBe(true)
    expect((await listAudit(tokenB, `?resourceId=${childId}`)).body.data).toEqual([])
    expect((await listAudit(tokenB, `?actorId=${tenant.client.client_id}`)).body.data).toEqual([])

    const countB = await platform.api.deps.db.auditEvent.count({ where: { tenantId: clientB.tenantId } })
    const verifyB = await platform.http.get('/v1/audit-events/verify', { token: tokenB })
    expect(verifyB.body).toMatchObject({ valid: true, checked: countB })
  })
})
