/**
 * @module The hash that chains audit records. A record's hash is SHA-256 (lowercase hex) over the UTF-8 bytes of
 *
 *     <prevHash> "\n" <seq in decimal> "\n" <canonical JSON of the record's other fields>
 *
 * where the canonical JSON (RFC 8785, ../canonical-json.ts) has the fields below in that (sorted) order, `occurredAt`
 * as an ISO 8601 UTC string with milliseconds and `Z`, absent values as `null`, and no whitespace. The sealer (seal-audit-events.ts) computes it
 * when it puts a record on its chain; anyone holding the records (the API returns every field) can recompute it.
 * docs/audit-trail.md states the form for external verifiers.
 */
import { createHash } from 'node:crypto'
import { canonicalJson } from '../canonical-json.ts'
import type { AuditEntry, SealedAuditEvent } from './audit-event.ts'

/** The record fields in canonical (sorted) order. Changing this list invalidates every existing chain. */
export const CANONICAL_FIELDS = [
  'actorId',
  'actorType',
  'clientIp',
  'id',
  'latencyMs',
  'locationId',
  'method',
  'occurredAt',
  'path',
  'requestId',
  'resourceId',
  'resourceType',
  'route',
  'status',
  'tenantId',
  'userAgent',
] as const satisfies ReadonlyArray<keyof AuditEntry | 'id'>

type RecordFields = AuditEntry & { id: string }

// A field added to a record but not to CANONICAL_FIELDS would go unprotected: this stops the build instead.
type Unhashed = Exclude<keyof RecordFields, (typeof CANONICAL_FIELDS)[number]>
const everyFieldHashed: [Unhashed] extends [never] ? true : false = true
void everyFieldHashed

/** The canonical JSON of a record's own fields (everything but `seq`, `prevHash` and `hash`). */
export function canonicalAuditJson(record: RecordFields): string {
  const canonical: Record<string, string | number | null> = {}
  for (const field of CANONICAL_FIELDS) {
    const value = record[field]
    canonical[field] = value instanceof Date ? value.toISOString() : value
  }
  return canonicalJson(canonical)
}

/** The exact text a record's hash is computed over. */
export const chainedText = (prevHash: string, seq: bigint, canonicalJson: string) =>
  `${prevHash}\n${seq}\n${canonicalJson}`

/** The hash of a record, chained through its `prevHash` and `seq`. */
export function auditEventHash(event: Omit<SealedAuditEvent, 'hash'>): string {
  const text = chainedText(event.prevHash, event.seq, canonicalAuditJson(event))
  return createHash('sha256').update(text, 'utf8').digest('hex')
}
