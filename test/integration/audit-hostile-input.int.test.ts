/**
 * The audit trail cannot be broken by what it records (issue 54): the record of a call travels inside the COMMIT's
 * own message as text (auditInsertStatement), so a User-Agent, a path or a query holding `$2`, `$&`, `` $` ``, `$'`
 * or `$1` once made the statement substitute into the wrong placeholder and every such call answered 500. Through the
 * real API and the real database: such calls answer as any other and are recorded verbatim; and a property run feeds
 * every character class through the statement itself and reads the stored record back.
 */
import { randomUUID } from 'node:crypto'
import fc from 'fast-check'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { auditInsertStatement } from '../../domain/audit/append-audit-event.ts'
import { normaliseEntry, type AuditEntry } from '../../domain/audit/audit-event.ts'
import type { ProvisionedClient } from '../../domain/tenants/provision-client.ts'
import { runInUnitOfWork } from '../../infra/unit-of-work.ts'
import { startPlatform, type Platform } from '../support/platform.ts'

let platform: Platform
let tenant: ProvisionedClient
let token: string
let childId: string

/** Everything String.prototype.replace reads in a replacement string, and the statement's own placeholders. */
const REPLACEMENT_PATTERNS = ['$2', '$&', '$`', "$'", '$1', '$$', '$<x>', '$2::boolean', '$1::json']

beforeAll(async () => {
  platform = await startPlatform({ withWorker: false })
  tenant = await platform.newTenant(['children', 'audit'])
  token = await platform.token(tenant)
  const created = await platform.http.post('/v1/children', {
    token,
    body: { firstName: 'Ada', lastName: 'Hostile', dateOfBirth: '2021-03-04' },
  })
  expect(created.status).toBe(201)
  childId = created.body.id as string
})

afterAll(async () => {
  // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- unset when beforeAll failed before assigning it
  await platform?.stop()
})

const recordOf = async (requestId: string) => {
  const records = await platform.api.deps.db.auditEvent.findMany({ where: { requestId } })
  expect(records).toHaveLength(1)
  return records[0]!
}

describe('request data with replacement patterns', () => {
  it.each(REPLACEMENT_PATTERNS)(
    'answers a read whose User-Agent, path and query hold %s, and records it verbatim',
    async (pattern) => {
      const userAgent = `x${pattern}y`
      const readId = `req_hostile_${randomUUID().replace(/-/g, '')}`
      const read = await platform.http.get(`/v1/children/${childId}?q=${encodeURIComponent(pattern)}`, {
        token,
        headers: { 'User-Agent': userAgent, 'X-Request-Id': readId },
      })
      expect(read.status).toBe(200)
      expect((await recordOf(readId)).userAgent).toBe(userAgent)

      // The pattern in the path itself: an unknown child, answered 404 as a problem, recorded with the path as sent.
      const missingId = `req_hostile_${randomUUID().replace(/-/g, '')}`
      const path = `/v1/children/chd_${encodeURIComponent(pattern)}`
      const missing = await platform.http.get(path, {
        token,
        headers: { 'User-Agent': userAgent, 'X-Request-Id': missingId },
      })
      expect(missing.status).toBe(404)
      const record = await recordOf(missingId)
      expect(record.userAgent).toBe(userAgent)
      expect(decodeURIComponent(record.path)).toBe(`/v1/children/chd_${pattern}`)
    }
  )
})

describe('the statement that carries a record', () => {
  it('stores any path and User-Agent exactly as normalised, whatever characters they hold', async () => {
    const db = platform.api.deps.db
    // Every class a header or a path can bring: ASCII with `$` and quotes weighted in, any Unicode (astral, lone
    // surrogates, NUL), and the replacement patterns themselves mixed into other text.
    const hostileText = fc.oneof(
      fc.string({ unit: fc.constantFrom('$', '1', '2', '&', '`', "'", '"', '\\', ':', ' ', 'a', '\0'), maxLength: 40 }),
      fc.string({ unit: 'binary', maxLength: 60 }),
      fc.string({ unit: 'grapheme-composite', maxLength: 30 }),
      fc
        .tuple(fc.string({ maxLength: 10 }), fc.constantFrom(...REPLACEMENT_PATTERNS), fc.string({ maxLength: 10 }))
        .map((parts) => parts.join(''))
    )
    await fc.assert(
      fc.asyncProperty(hostileText, hostileText, async (path, userAgent) => {
        const entry: AuditEntry = {
          tenantId: tenant.tenantId,
          occurredAt: new Date(),
          actorType: 'anonymous',
          actorId: null,
          locationId: null,
          method: 'GET',
          route: '',
          path,
          resourceType: null,
          resourceId: null,
          status: 404,
          requestId: `req_prop_${randomUUID().replace(/-/g, '')}`,
          clientIp: null,
          userAgent,
          latencyMs: 1,
        }
        const statement = auditInsertStatement(entry, { durability: 'asynchronous' })
        await runInUnitOfWork(db, tenant.tenantId, (uow) => uow.execute(statement, []))
        const stored = await recordOf(entry.requestId)
        const expected = normaliseEntry(entry)
        expect(stored.path).toBe(expected.path)
        expect(stored.userAgent).toBe(expected.userAgent)
      }),
      { numRuns: 150 }
    )
  })
})
