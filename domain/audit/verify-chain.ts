/**
 * @module Verifying a tenant's audit chain: walk it in `seq` order, in batches, recomputing each record's hash and
 * checking that it links to its predecessor, and report the first broken link. What it detects: a changed field
 * (`hash_mismatch`), a record replaced together with its own hash (`prev_hash_mismatch` on the next one), a deleted
 * or inserted record (`seq_gap`, or a link mismatch). What no chain detects on its own: rewriting every hash from some
 * point to the end, or cutting off the tail; comparing `head` with a copy kept elsewhere catches both.
 */
import type { UnitOfWork } from '../../infra/unit-of-work.ts'
import { GENESIS_HASH, type ActorType, type AuditEvent } from './audit-event.ts'
import { auditEventHash } from './audit-hash.ts'

export type BrokenLinkReason = 'seq_gap' | 'prev_hash_mismatch' | 'hash_mismatch'

/** Where and how a chain breaks. */
export interface BrokenLink {
  /** The seq of the first record that does not verify. */
  seq: number
  id: string
  reason: BrokenLinkReason
  /** For `seq_gap` the seq that should have come; otherwise the hash that should have been found. */
  expected: string
  found: string
}

/** The outcome of a verification, as the endpoint and the CLI print it. */
export interface ChainReport {
  valid: boolean
  /** Records examined, the broken one included. */
  checked: number
  firstBrokenLink: BrokenLink | null
  /** The last record when the whole chain verifies: keep it elsewhere to detect a rewritten or truncated tail. */
  head: { seq: number; hash: string } | null
}

/** What the next record of a chain must carry. */
export interface ChainPosition {
  seq: bigint
  prevHash: string
}

/** The position of a chain's first record. */
export const CHAIN_START: ChainPosition = { seq: 1n, prevHash: GENESIS_HASH }

/**
 * Checks one record against the position it should occupy.
 * @returns the broken link, or null when the record is in place and its hash is right
 */
export function checkLink(event: AuditEvent, position: ChainPosition): BrokenLink | null {
  const at = { seq: Number(event.seq), id: event.id }
  if (event.seq !== position.seq) {
    return { ...at, reason: 'seq_gap', expected: position.seq.toString(), found: event.seq.toString() }
  }
  if (event.prevHash !== position.prevHash) {
    return { ...at, reason: 'prev_hash_mismatch', expected: position.prevHash, found: event.prevHash }
  }
  const recomputed = auditEventHash(event)
  if (recomputed !== event.hash) return { ...at, reason: 'hash_mismatch', expected: recomputed, found: event.hash }
  return null
}

/** Reads up to `limit` records with seq greater than `afterSeq`, in seq order. */
export type ReadAuditBatch = (afterSeq: bigint, limit: number) => Promise<AuditEvent[]>

/**
 * Walks a chain from its start and stops at the first broken link.
 * @param readBatch - the chain's records in seq order
 * @param batchSize - records per read
 */
export async function verifyChain(readBatch: ReadAuditBatch, batchSize = 1000): Promise<ChainReport> {
  let position = CHAIN_START
  let checked = 0
  let last: AuditEvent | undefined
  for (;;) {
    const batch = await readBatch(position.seq - 1n, batchSize)
    for (const event of batch) {
      checked += 1
      const broken = checkLink(event, position)
      if (broken) return { valid: false, checked, firstBrokenLink: broken, head: null }
      position = { seq: event.seq + 1n, prevHash: event.hash }
      last = event
    }
    if (batch.length < batchSize) break
  }
  const head = last ? { seq: Number(last.seq), hash: last.hash } : null
  return { valid: true, checked, firstBrokenLink: null, head }
}

/** Runs `work` in a unit of work of the tenant being verified. */
export type WithTenantUnitOfWork = <T>(work: (uow: UnitOfWork) => Promise<T>) => Promise<T>

/**
 * Verifies the chain of a tenant, reading through row-level security as that tenant.
 * @param withUnitOfWork - the request's own unit of work, or a fresh one per batch (the CLI), so a long chain does
 *   not hold one transaction open for the whole walk
 */
export function verifyTenantChain(withUnitOfWork: WithTenantUnitOfWork, batchSize?: number): Promise<ChainReport> {
  return verifyChain(
    (afterSeq, limit) =>
      withUnitOfWork(async ({ tx, tenantId }) => {
        const rows = await tx.auditEvent.findMany({
          where: { tenantId, seq: { gt: afterSeq } },
          orderBy: { seq: 'asc' },
          take: limit,
        })
        return rows.map((row) => ({ ...row, actorType: row.actorType as ActorType }))
      }),
    batchSize
  )
}
