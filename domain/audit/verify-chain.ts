/**
 * @module Verifying a tenant's audit chain: walk `audit_chain` in `seq` order, in batches, joined to the records it
 * seals, recomputing each record's hash and checking that it links to its predecessor, and report the first broken
 * link. What it detects: a changed record (`hash_mismatch`), a record replaced together with its own hash
 * (`prev_hash_mismatch` on the next one), a removed link (`seq_gap`), a removed record (`event_missing`). What no
 * chain detects on its own: rewriting every hash from some point to the end, or cutting off the tail; comparing
 * `head` with a copy kept elsewhere catches both. A record is protected once sealed: verification seals first, and
 * reports records the sealer has left unsealed for over a minute.
 */
import type { UnitOfWork } from '../../infra/unit-of-work.ts'
import { GENESIS_HASH, type AuditRecord } from './audit-event.ts'
import { auditEventHash } from './audit-hash.ts'
import {
  AUDIT_EVENT_COLUMNS,
  SEAL_BATCH,
  sealTenantChain,
  toAuditRecord,
  type AuditEventRow,
} from './seal-audit-events.ts'

export type BrokenLinkReason = 'seq_gap' | 'prev_hash_mismatch' | 'hash_mismatch' | 'event_missing'

/** Where and how a chain breaks. */
export interface BrokenLink {
  /** The seq of the first link that does not verify. */
  seq: number
  /** The id of the record the link seals. */
  id: string
  reason: BrokenLinkReason
  /**
   * For `seq_gap` the seq that should have come; for `event_missing` the record's id; otherwise the hash that should
   * have been found.
   */
  expected: string
  /** For `event_missing`, empty: nothing was found. */
  found: string
}

/** The outcome of walking a chain. */
export interface ChainWalk {
  valid: boolean
  /** Links examined, the broken one included. */
  checked: number
  firstBrokenLink: BrokenLink | null
  /** The last link when the whole chain verifies: keep it elsewhere to detect a rewritten or truncated tail. */
  head: { seq: number; hash: string } | null
}

/** The outcome of a verification, as the endpoint and the CLI print it. */
export interface ChainReport extends ChainWalk {
  /** Records not on the chain yet (committed after the verification sealed, or left behind by a stopped sealer). */
  unsealed: number
  /** Unsealed records that arrived over {@link STALE_UNSEALED_MS} ago: the sealer is not running. Invalid. */
  staleUnsealed: number
}

/** How long a record may wait to be sealed before verification calls it a problem (the seal interval is 500 ms). */
export const STALE_UNSEALED_MS = 60_000

/** One link of a chain with the record it seals; `event` is null when the record is gone. */
export interface ChainLink {
  seq: bigint
  eventId: string
  prevHash: string
  hash: string
  event: AuditRecord | null
}

/** What the next link of a chain must carry. */
export interface ChainPosition {
  seq: bigint
  prevHash: string
}

/** The position of a chain's first link. */
export const CHAIN_START: ChainPosition = { seq: 1n, prevHash: GENESIS_HASH }

/**
 * Checks one link against the position it should occupy.
 * @returns the broken link, or null when the link is in place and its record's hash is right
 */
export function checkLink(link: ChainLink, position: ChainPosition): BrokenLink | null {
  const at = { seq: Number(link.seq), id: link.eventId }
  if (link.seq !== position.seq) {
    return { ...at, reason: 'seq_gap', expected: position.seq.toString(), found: link.seq.toString() }
  }
  if (link.prevHash !== position.prevHash) {
    return { ...at, reason: 'prev_hash_mismatch', expected: position.prevHash, found: link.prevHash }
  }
  if (!link.event) return { ...at, reason: 'event_missing', expected: link.eventId, found: '' }
  const recomputed = auditEventHash({ ...link.event, seq: link.seq, prevHash: link.prevHash })
  if (recomputed !== link.hash) return { ...at, reason: 'hash_mismatch', expected: recomputed, found: link.hash }
  return null
}

/** Reads up to `limit` links with seq greater than `afterSeq`, in seq order. */
export type ReadChainBatch = (afterSeq: bigint, limit: number) => Promise<ChainLink[]>

/**
 * Walks a chain from its start and stops at the first broken link.
 * @param readBatch - the chain's links in seq order
 * @param batchSize - links per read
 */
export async function verifyChain(readBatch: ReadChainBatch, batchSize = 1000): Promise<ChainWalk> {
  let position = CHAIN_START
  let checked = 0
  let last: ChainLink | undefined
  for (;;) {
    const batch = await readBatch(position.seq - 1n, batchSize)
    for (const link of batch) {
      checked += 1
      const broken = checkLink(link, position)
      if (broken) return { valid: false, checked, firstBrokenLink: broken, head: null }
      position = { seq: link.seq + 1n, prevHash: link.hash }
      last = link
    }
    if (batch.length < batchSize) break
  }
  const head = last ? { seq: Number(last.seq), hash: last.hash } : null
  return { valid: true, checked, firstBrokenLink: null, head }
}

/** Runs `work` in a unit of work of the tenant being verified. */
export type WithTenantUnitOfWork = <T>(work: (uow: UnitOfWork) => Promise<T>) => Promise<T>

type LinkRow = Omit<AuditEventRow, 'id'> & {
  seq: bigint
  event_id: string
  prev_hash: string
  hash: string
  id: string | null
}

/** Reads a batch of the unit's tenant's chain; a LEFT JOIN, so a link whose record is gone still shows. */
async function readLinks({ tx, tenantId }: UnitOfWork, afterSeq: bigint, limit: number): Promise<ChainLink[]> {
  const rows = await tx.$queryRawUnsafe<LinkRow[]>(
    `SELECT c.seq, c.event_id, c.prev_hash, c.hash, ${AUDIT_EVENT_COLUMNS}
     FROM audit_chain c LEFT JOIN audit_events e ON e.id = c.event_id
     WHERE c.tenant_id = $1 AND c.seq > $2 ORDER BY c.seq LIMIT $3`,
    tenantId,
    afterSeq,
    limit
  )
  return rows.map((row) => ({
    seq: BigInt(row.seq),
    eventId: row.event_id,
    prevHash: row.prev_hash,
    hash: row.hash,
    event: row.id === null ? null : toAuditRecord({ ...row, id: row.id }),
  }))
}

/** Counts the unit's tenant's unsealed records, and those of them older than `staleBefore`. */
async function countUnsealed({ tx, tenantId }: UnitOfWork, staleBefore: Date) {
  const [row] = await tx.$queryRaw<Array<{ unsealed: bigint; stale: bigint }>>`
    SELECT count(*) AS unsealed, count(*) FILTER (WHERE e.occurred_at < ${staleBefore}) AS stale
    FROM audit_events e
    WHERE e.tenant_id = ${tenantId} AND NOT EXISTS (SELECT 1 FROM audit_chain c WHERE c.event_id = e.id)`
  return { unsealed: Number(row?.unsealed ?? 0), staleUnsealed: Number(row?.stale ?? 0) }
}

export interface VerifyOptions {
  /** Links per read. */
  batchSize?: number
  /**
   * Seal what has committed before walking (the default), so the report covers every committed record. `false`
   * checks the sealer instead: records it has left behind for over a minute make the report invalid.
   */
  seal?: boolean
  /** Now, for the stale cutoff; the same clock as the records' `occurredAt`. */
  now?: Date
}

/**
 * Verifies the chain of a tenant, reading through row-level security as that tenant.
 * @param withUnitOfWork - the request's own unit of work, or a fresh one per batch (the CLI), so a long chain does
 *   not hold one transaction open for the whole walk
 */
export async function verifyTenantChain(
  withUnitOfWork: WithTenantUnitOfWork,
  options: VerifyOptions = {}
): Promise<ChainReport> {
  if (options.seal !== false) {
    while ((await withUnitOfWork((uow) => sealTenantChain(uow))) === SEAL_BATCH);
  }
  const walk = await verifyChain(
    (afterSeq, limit) => withUnitOfWork((uow) => readLinks(uow, afterSeq, limit)),
    options.batchSize
  )
  const staleBefore = new Date((options.now ?? new Date()).getTime() - STALE_UNSEALED_MS)
  const counts = await withUnitOfWork((uow) => countUnsealed(uow, staleBefore))
  return { ...walk, valid: walk.valid && counts.staleUnsealed === 0, ...counts }
}
