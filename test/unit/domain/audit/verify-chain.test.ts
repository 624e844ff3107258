import { createHash } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import {
  actorOf,
  GENESIS_HASH,
  normaliseEntry,
  type AuditEntry,
  type SealedAuditEvent,
} from '../../../../domain/audit/audit-event.ts'
import { auditEventHash, canonicalAuditJson, CANONICAL_FIELDS } from '../../../../domain/audit/audit-hash.ts'
import { decodeAuditCursor, encodeAuditCursor } from '../../../../domain/audit/list-audit-events.ts'
import { verifyChain, type ChainLink, type ReadChainBatch } from '../../../../domain/audit/verify-chain.ts'

const entry = (n: number): AuditEntry => ({
  tenantId: 'ten_1',
  occurredAt: new Date(Date.UTC(2026, 10, 21, 18, 0, 0, n)),
  actorType: 'client',
  actorId: 'cli_1',
  locationId: n % 2 ? 'loc_1' : null,
  method: 'GET',
  route: '/v1/children/:id',
  path: `/v1/children/chd_${n}`,
  resourceType: 'children',
  resourceId: `chd_${n}`,
  status: 200,
  requestId: `req_${n}`,
  clientIp: '127.0.0.1',
  userAgent: 'vitest',
  latencyMs: n,
})

/** A valid chain of `length` records, built the way the sealer builds them. */
function buildChain(length: number): SealedAuditEvent[] {
  const events: SealedAuditEvent[] = []
  for (let n = 1; n <= length; n++) {
    const unchained = { ...entry(n), id: `aud_${n}`, seq: BigInt(n), prevHash: events.at(-1)?.hash ?? GENESIS_HASH }
    events.push({ ...unchained, hash: auditEventHash(unchained) })
  }
  return events
}

/** A sealed record as audit_chain joined to audit_events holds it; `event` null when the record is gone. */
const linkOf = ({ seq, prevHash, hash, ...event }: SealedAuditEvent, present = true): ChainLink => ({
  seq,
  eventId: event.id,
  prevHash,
  hash,
  event: present ? event : null,
})

/** Serves a stored chain the way the database does: seq > after, in seq order, `limit` at a time. */
const reader =
  (events: Array<SealedAuditEvent | ChainLink>): ReadChainBatch =>
  async (afterSeq, limit) =>
    events
      .map((e) => ('eventId' in e ? e : linkOf(e)))
      .filter((e) => e.seq > afterSeq)
      .sort((a, b) => Number(a.seq - b.seq))
      .slice(0, limit)

describe('audit record hashing', () => {
  it('hashes prevHash, seq and a canonical JSON with sorted keys and ISO UTC time, joined by newlines', () => {
    const [first] = buildChain(1)
    const canonical = canonicalAuditJson(first!)
    expect(canonical).toBe(
      '{"actorId":"cli_1","actorType":"client","clientIp":"127.0.0.1","id":"aud_1","latencyMs":1,' +
        '"locationId":"loc_1","method":"GET","occurredAt":"2026-11-21T18:00:00.001Z","path":"/v1/children/chd_1",' +
        '"requestId":"req_1","resourceId":"chd_1","resourceType":"children","route":"/v1/children/:id","status":200,' +
        '"tenantId":"ten_1","userAgent":"vitest"}'
    )
    expect(first!.hash).toBe(createHash('sha256').update(`${GENESIS_HASH}\n1\n${canonical}`).digest('hex'))
    // Pinned (computed with sha256sum): a change to the hashed form breaks every stored chain.
    expect(first!.hash).toBe('86cea6b6b3c8fa9405d4cb6e011987282359f7eff5dcb46a8c08c881484286aa')
  })

  it('covers every field: changing any one of them changes the hash', () => {
    const [event] = buildChain(1)
    const changed: Record<string, unknown> = {
      occurredAt: new Date(event!.occurredAt.getTime() + 1),
      seq: 2n,
      status: 201,
      latencyMs: 2,
      actorType: 'anonymous',
      actorId: null,
    }
    for (const field of [...CANONICAL_FIELDS, 'seq', 'prevHash'] as const) {
      const value = field in changed ? changed[field] : `${String(event![field])}x`
      expect(auditEventHash({ ...event!, [field]: value }), field).not.toBe(event!.hash)
    }
  })
})

describe('audit entry normalisation', () => {
  it('stores what it hashes: no NUL, well-formed text, bounded lengths and latency', () => {
    const normalised = normaliseEntry({
      ...entry(1),
      path: '/v1/children/a\0b',
      userAgent: `agent \uD800 ${'x'.repeat(1000)}`,
      actorId: '',
      latencyMs: -3.4,
    })
    expect(normalised.path).toBe('/v1/children/a\uFFFDb')
    expect(normalised.userAgent).toMatch(/^agent \uFFFD x+$/)
    expect(normalised.userAgent).toHaveLength(512)
    expect(normalised.actorId).toBeNull()
    expect(normalised.latencyMs).toBe(0)
    expect(normaliseEntry({ ...entry(1), latencyMs: 12.6 }).latencyMs).toBe(13)
  })

  it('names the actor of a principal, and an anonymous one without', () => {
    expect(actorOf({ kind: 'client', actorId: 'cli_9' })).toEqual({ actorType: 'client', actorId: 'cli_9' })
    expect(actorOf({ kind: 'api_key', actorId: 'key_1' })).toEqual({ actorType: 'api_key', actorId: 'key_1' })
    expect(actorOf(undefined)).toEqual({ actorType: 'anonymous', actorId: null })
  })
})

describe('audit chain verification', () => {
  it('accepts an intact chain read over several batches and reports its head', async () => {
    const events = buildChain(5)
    const report = await verifyChain(reader(events), 2)
    const head = { seq: 5, hash: events[4]!.hash }
    expect(report).toEqual({ valid: true, checked: 5, firstBrokenLink: null, head })
  })

  it('accepts an empty chain', async () => {
    expect(await verifyChain(reader([]))).toEqual({ valid: true, checked: 0, firstBrokenLink: null, head: null })
  })

  it('reports a changed record as the first broken link, with the hash it should have', async () => {
    const events = buildChain(5)
    const tampered = { ...events[2]!, status: 500 }
    events[2] = tampered
    const report = await verifyChain(reader(events), 2)
    expect(report.valid).toBe(false)
    expect(report.checked).toBe(3)
    expect(report.firstBrokenLink).toEqual({
      seq: 3,
      id: 'aud_3',
      reason: 'hash_mismatch',
      expected: auditEventHash(tampered),
      found: tampered.hash,
    })
    expect(report.head).toBeNull()
  })

  it('reports a record replaced together with its own hash at the next link', async () => {
    const events = buildChain(5)
    const forged = { ...events[2]!, status: 404 }
    events[2] = { ...forged, hash: auditEventHash(forged) }
    const report = await verifyChain(reader(events))
    expect(report.firstBrokenLink).toMatchObject({
      seq: 4,
      reason: 'prev_hash_mismatch',
      expected: events[2].hash,
      found: buildChain(3)[2]!.hash,
    })
  })

  it('reports a deleted record as a gap, also at the start of the chain and across a batch boundary', async () => {
    const middle = buildChain(5).filter((e) => e.seq !== 3n)
    expect((await verifyChain(reader(middle), 2)).firstBrokenLink).toEqual({
      seq: 4,
      id: 'aud_4',
      reason: 'seq_gap',
      expected: '3',
      found: '4',
    })
    const head = buildChain(3).slice(1)
    const report = await verifyChain(reader(head))
    expect(report.firstBrokenLink).toMatchObject({ seq: 2, reason: 'seq_gap', expected: '1' })
  })

  it('reports a link whose record is gone', async () => {
    const events: Array<SealedAuditEvent | ChainLink> = buildChain(4)
    events[1] = linkOf(events[1] as SealedAuditEvent, false)
    expect((await verifyChain(reader(events))).firstBrokenLink).toEqual({
      seq: 2,
      id: 'aud_2',
      reason: 'event_missing',
      expected: 'aud_2',
      found: '',
    })
  })
})

describe('audit list cursors', () => {
  it('round-trip in their own direction only', () => {
    const position = { occurredAt: new Date('2026-11-21T18:00:00.123Z'), id: 'aud_42' }
    expect(decodeAuditCursor(encodeAuditCursor(position, 'desc'), 'desc')).toEqual(position)
    expect(decodeAuditCursor(encodeAuditCursor(position, 'desc'), 'asc')).toBeUndefined()
    expect(decodeAuditCursor('not-a-cursor', 'desc')).toBeUndefined()
    const forged = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url')
    expect(decodeAuditCursor(forged({ at: 'yesterday', id: 'aud_1', dir: 'desc' }), 'desc')).toBeUndefined()
    expect(decodeAuditCursor(forged({ at: '2026-11-21T18:00:00.000Z', id: 7, dir: 'desc' }), 'desc')).toBeUndefined()
    expect(decodeAuditCursor(forged({ seq: '1', dir: 'desc' }), 'desc')).toBeUndefined()
  })
})
