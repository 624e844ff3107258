/**
 * @module Resource ids: a short type prefix over a UUIDv7, so ids sort by creation time in indexes and logs while
 * staying opaque to clients (docs/conventions.md).
 */
import { randomUUID } from 'node:crypto'
import { Prisma } from '../generated/prisma/client.ts'
import { ID_PREFIXES, type IdKind } from './id-prefixes.ts'

export { ID_PREFIXES, type IdKind }

/**
 * A UUIDv7 (RFC 9562 §5.7): 48 bits of Unix milliseconds, then version, variant and random bits.
 *
 * Built on `randomUUID()`, whose version 4 layout has the variant where version 7 has it and 122 random bits: the
 * first 48 become the time and the version digit becomes 7, which leaves 74 random bits. `randomUUID` draws from a
 * cached pool of randomness, so this costs a fraction of a `randomBytes(16)` (an id is made on every request).
 * @param now - milliseconds since the epoch (injectable for tests)
 */
export function uuidv7(now: number = Date.now()): string {
  const time = now.toString(16).padStart(12, '0')
  // randomUUID(): xxxxxxxx-xxxx-4xxx-Vxxx-xxxxxxxxxxxx, with the version digit at index 14.
  return `${time.slice(0, 8)}-${time.slice(8, 12)}-7${randomUUID().slice(15)}`
}

/**
 * A new id for a resource kind, e.g. `apt_0193c1a2b3c47d...`.
 * @param kind - the resource kind, which picks the prefix
 */
export function newId(kind: IdKind): string {
  return `${ID_PREFIXES[kind]}_${uuidv7().replace(/-/g, '')}`
}

/**
 * The SQL expression of {@link newId}, for rows a statement creates itself (one per row: both functions are volatile):
 * the same prefix, the time as `clock_timestamp()` milliseconds, the random part from `gen_random_uuid()` (a v4 UUID,
 * whose version digit is the 13th hex digit: the 19 after it are kept, as `uuidv7` keeps them).
 */
export function sqlNewId(kind: IdKind): Prisma.Sql {
  return Prisma.sql`(${ID_PREFIXES[kind] + '_'} || lpad(to_hex(floor(extract(epoch FROM clock_timestamp()) * 1000)::bigint), 12, '0')
    || '7' || substr(replace(gen_random_uuid()::text, '-', ''), 14))`
}
