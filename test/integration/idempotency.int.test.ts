/**
 * Idempotency-Key on every write (docs/conventions.md), beyond the booking flow's replay tests: a duplicate that arrives
 * while the first request is still running, keys expiring after 24 hours, 5xx releasing the key, and PATCH and
 * DELETE replays.
 */
import { randomUUID } from 'node:crypto'
import pg from 'pg'
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest'
import { startPlatform, type Platform } from '../support/platform.ts'
import { testDatabaseUrl } from '../support/file-database.ts'

let platform: Platform
let token: string
let now = Date.now()
let childId: string
let providerId: string
let client: Awaited<ReturnType<Platform['newTenant']>>

const slot = (days: number) => new Date(Date.now() + days * 86_400_000).toISOString()

beforeAll(async () => {
  platform = await startPlatform({
    withWorker: false,
    clock: () => new Date(now),
    overrides: { IDEMPOTENCY_WAIT_MS: '300' },
  })
  client = await platform.newTenant(['children', 'providers', 'bookings', 'api_keys'])
  token = await platform.token(client)
  childId = (
    await platform.http.post('/v1/children', {
      token,
      body: { firstName: 'I', lastName: 'K', dateOfBirth: '2022-01-01' },
    })
  ).body.id
  providerId = (await platform.http.post('/v1/providers', { token, body: { name: 'P', timeZone: 'UTC' } })).body.id
})

afterAll(async () => {
  // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- unset when beforeAll failed before assigning it
  await platform?.stop()
})

describe('a duplicate while the first request is in flight', () => {
  it('waits for the first request, then answers 409 on a server with real locks or replays on the embedded one', async () => {
    const key = randomUUID()
    const body = { childId, providerId, startsAt: slot(30) }
    const isServer = inject('databaseKind') === 'postgresql'
    // Hold the provider's row so the first booking blocks inside its transaction, holding its idempotency key.
    const blocker = new pg.Client({ connectionString: testDatabaseUrl() })
    await blocker.connect()
    await blocker.query('BEGIN')
    await blocker.query('SELECT id FROM providers WHERE id = $1 FOR UPDATE', [providerId])
    try {
      const first = platform.http.post('/v1/appointments', { token, headers: { 'Idempotency-Key': key }, body })
      await new Promise((resolve) => setTimeout(resolve, 300))
      const second = platform.http.post('/v1/appointments', { token, headers: { 'Idempotency-Key': key }, body })
      if (isServer) {
        const duplicate = await second
        expect(duplicate.status).toBe(409)
        expect(duplicate.body.code).toBe('idempotency_request_in_progress')
        expect(duplicate.headers.get('retry-after')).toBe('1')
        await blocker.query('COMMIT')
        expect((await first).status).toBe(201)
      } else {
        // One PGlite backend serves connections in turn: the blocker's transaction holds it, so release it first.
        await blocker.query('COMMIT')
        const [a, b] = await Promise.all([first, second])
        expect([a.status, b.status]).toEqual([201, 201])
        expect(b.body.id).toBe(a.body.id)
      }
    } finally {
      await blocker.end()
    }
    const replay = await platform.http.post('/v1/appointments', { token, headers: { 'Idempotency-Key': key }, body })
    expect(replay.status).toBe(201)
    expect(replay.headers.get('idempotent-replayed')).toBe('true')
    expect(
      await platform.api.deps.db.appointment.count({ where: { providerId, startsAt: new Date(body.startsAt) } })
    ).toBe(1)
  })
})

describe('key lifetime and failures', () => {
  it('forgets a key after 24 hours', async () => {
    const key = randomUUID()
    const first = await platform.http.post('/v1/providers', {
      token,
      headers: { 'Idempotency-Key': key },
      body: { name: 'Day one', timeZone: 'UTC' },
    })
    expect(first.status).toBe(201)
    try {
      // The key belongs to the client, not to one access token: a fresh token at the later time still meets it.
      now += 23 * 3600_000
      const later = await platform.token(client)
      const sameDay = await platform.http.post('/v1/providers', {
        token: later,
        headers: { 'Idempotency-Key': key },
        body: { name: 'Other', timeZone: 'UTC' },
      })
      expect(sameDay.status).toBe(422)
      now += 2 * 3600_000
      const nextDay = await platform.http.post('/v1/providers', {
        token: await platform.token(client),
        headers: { 'Idempotency-Key': key },
        body: { name: 'Other', timeZone: 'UTC' },
      })
      expect(nextDay.status).toBe(201)
      expect(nextDay.body.id).not.toBe(first.body.id)
    } finally {
      now = Date.now()
    }
  })

  it('does not store a 5xx: the failed attempt leaves nothing and the same key can be retried', async () => {
    const marker = `explode-${randomUUID()}`
    const db = platform.db
    await db.$executeRawUnsafe(`
      CREATE OR REPLACE FUNCTION test_explode() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN IF NEW.notes = '${marker}' THEN RAISE EXCEPTION 'boom'; END IF; RETURN NEW; END $$`)
    await db.$executeRawUnsafe(
      'CREATE TRIGGER test_explode BEFORE UPDATE ON appointments FOR EACH ROW EXECUTE FUNCTION test_explode()'
    )
    await db.$executeRawUnsafe(
      'CREATE TRIGGER test_explode_insert BEFORE INSERT ON appointments FOR EACH ROW EXECUTE FUNCTION test_explode()'
    )
    const key = randomUUID()
    const body = { childId, providerId, startsAt: slot(40), notes: marker }
    try {
      const failed = await platform.http.post('/v1/appointments', { token, headers: { 'Idempotency-Key': key }, body })
      expect(failed.status).toBe(500)
      expect(failed.body.code).toBe('internal_error')
      expect(JSON.stringify(failed.body)).not.toContain('boom')
      expect(await db.idempotencyRecord.count({ where: { key } })).toBe(0)
    } finally {
      await db.$executeRawUnsafe('DROP TRIGGER test_explode_insert ON appointments')
      await db.$executeRawUnsafe('DROP TRIGGER test_explode ON appointments')
    }
    const retried = await platform.http.post('/v1/appointments', { token, headers: { 'Idempotency-Key': key }, body })
    expect(retried.status).toBe(201)
    expect(retried.headers.get('idempotent-replayed')).toBeNull()
    expect(await db.appointment.count({ where: { notes: marker } })).toBe(1)
  })
})

describe('every write method', () => {
  it('replays DELETE and PATCH with the same key', async () => {
    const created = await platform.http.post('/v1/api-keys', {
      token,
      body: { name: 'k', permissions: [{ resource: 'children', methods: ['GET'] }] },
    })
    const key = randomUUID()
    const first = await platform.http.request('DELETE', `/v1/api-keys/${created.body.id}`, {
      token,
      headers: { 'Idempotency-Key': key },
    })
    const again = await platform.http.request('DELETE', `/v1/api-keys/${created.body.id}`, {
      token,
      headers: { 'Idempotency-Key': key },
    })
    expect(first.status).toBe(200)
    expect(again.status).toBe(200)
    expect(again.body).toEqual(first.body)
    expect(again.headers.get('idempotent-replayed')).toBe('true')

    const other = await platform.http.request('DELETE', `/v1/api-keys/ak_other`, {
      token,
      headers: { 'Idempotency-Key': key },
    })
    expect(other.status).toBe(422)
    expect(other.body.code).toBe('idempotency_key_reused')
  })
})

describe('answers that carry a secret', () => {
  it('never keeps the secret in the idempotency record: with no sealing key, a replay answers 409', async () => {
    const key = randomUUID()
    const body = { name: 'shown once', permissions: [{ resource: 'children', methods: ['GET'] }] }
    const first = await platform.http.post('/v1/api-keys', { token, body, headers: { 'Idempotency-Key': key } })
    expect(first.status).toBe(201)
    const secret = first.body.secret as string
    expect(secret).toMatch(/^sk_/)
    const records = await platform.api.deps.db.idempotencyRecord.findMany({ where: { key } })
    expect(records).toHaveLength(1)
    expect(records[0]!.responseBody).not.toContain(secret)

    const again = await platform.http.post('/v1/api-keys', { token, body, headers: { 'Idempotency-Key': key } })
    expect(again.status).toBe(409)
    expect(again.body.code).toBe('idempotency_replay_withheld')
    expect(JSON.stringify(again.body)).not.toContain(secret)
    // Nothing made twice: the first request's key is the only one of that name.
    const keys = await platform.http.get('/v1/api-keys?limit=100', { token })
    expect(keys.body.data.filter((k: { name: string }) => k.name === 'shown once')).toHaveLength(1)
  })
})
