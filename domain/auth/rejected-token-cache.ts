/**
 * @module Credentials that were just refused, remembered briefly. An API key is looked up in the database and an SSO
 * token from a trusted-looking issuer may be too; a client (or an attacker) repeating the same bad credential would
 * otherwise cost a database round trip per request. A refused API key cannot turn valid later (keys are random
 * secrets, handed out once when created; revoked and expired stay so), and an SSO issuer a tenant starts trusting
 * is picked up once the entry ages out. Entries are kept by SHA-256 of the credential, so a long token costs 64
 * characters and the cache holds no secrets. Bounded: the oldest entries go first.
 */
import { createHash } from 'node:crypto'
import type { Clock } from '../../infra/clock.ts'

/** How long a refusal is remembered. */
export const REJECTED_TOKEN_TTL_MS = 30_000
/** Enough for a flood's repeats; a few MB at most. */
export const REJECTED_TOKEN_CACHE_SIZE = 10_000

export interface RejectedTokenCache {
  /** Whether this credential was refused within the last {@link REJECTED_TOKEN_TTL_MS}. */
  has(token: string): boolean
  /** Remembers a refused credential. */
  add(token: string): void
}

const digest = (token: string) => createHash('sha256').update(token).digest('hex')

/**
 * Creates the cache of one verifier.
 * @param clock - the verifier's clock
 * @param ttlMs - how long a refusal is remembered
 * @param maxEntries - the bound
 */
export function rejectedTokenCache(
  clock: Clock,
  ttlMs = REJECTED_TOKEN_TTL_MS,
  maxEntries = REJECTED_TOKEN_CACHE_SIZE
): RejectedTokenCache {
  // Insertion order is expiry order (one TTL for all), so the first entry is always the next to expire.
  const until = new Map<string, number>()
  return {
    has(token) {
      const key = digest(token)
      const expiresAt = until.get(key)
      if (expiresAt === undefined) return false
      if (expiresAt > clock().getTime()) return true
      until.delete(key)
      return false
    },
    add(token) {
      const key = digest(token)
      until.delete(key)
      until.set(key, clock().getTime() + ttlMs)
      while (until.size > maxEntries) until.delete(until.keys().next().value!)
    },
  }
}
