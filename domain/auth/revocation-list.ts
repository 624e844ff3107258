/**
 * @module The revoked access tokens, held in memory and synced from the database, so checking a token costs no
 * query. A revocation takes effect at once on the instance that received it and within the sync interval (one
 * second by default) on every other instance; entries leave the list when the token would have expired anyway.
 *
 * The sync follows the rows' `seq`, an identity column, not their `revoked_at`: a timestamp is the revoking
 * transaction's start on the clock of whoever wrote it, so a row committed after a newer one (a long transaction,
 * another instance's clock behind) fell below a timestamp high-water mark and was never read. Sequence values are
 * taken at INSERT and become visible at COMMIT, so they can appear out of order too (11 committed while 10 is still in
 * an open transaction). Every value below the high-water mark that was not read (a gap) is therefore asked for again,
 * by value, on every sync until it appears or `gapGraceMs` (a minute by default) has passed since it was first
 * missed. Asking for the missing values, rather than re-reading a window of rows behind the mark, keeps a sync to
 * the rows not seen yet and waits for a late commit by time, not by how many revocations came after it. Most gaps
 * never fill (a rolled-back insert, an `ON CONFLICT DO NOTHING` that took a value) and cost one indexed lookup a sync
 * until dropped. A revoking transaction that commits later than the grace after its insert would still be missed:
 * revocations are single statements or one short transaction (token-families.ts).
 *
 * It fails closed (issue 76): when no sync has succeeded for {@link STALE_AFTER_MS} (the database unreachable, a sync
 * slower than its interval), the list is no longer trusted, and {@link RevocationList.anyRevoked} asks the database for
 * each token it is asked about until a sync succeeds again; if the database cannot answer either, the request fails
 * (503) rather than accepting a token that may have been revoked meanwhile.
 */
import { startBackgroundLoop } from '../../infra/background-loop.ts'
import type { Clock } from '../../infra/clock.ts'
import type { Db } from '../../infra/db.ts'
import type { Logger } from '../../infra/logger.ts'
import { DAY_MS } from '../../common/time/calendar.ts'

/**
 * The entry that revokes every access token of a client at once (`clients revoke`): the tokens of a client credentials
 * grant are stateless, with no refresh token to find them by, so the client itself goes on the list. Kept longer than
 * any access token lives ({@link CLIENT_REVOCATION_TTL_MS}; ACCESS_TOKEN_TTL_SECONDS is at most a year): one small
 * entry per revoked client.
 */
export const clientRevocationKey = (clientId: string) => `client:${clientId}`

/** How long a revoked client's entry stays on the list: past the longest access token's expiry (a year and a day). */
export const CLIENT_REVOCATION_TTL_MS = 366 * DAY_MS

/** How long the list is trusted after its last successful sync: five sync intervals at the default of one second. */
export const STALE_AFTER_MS = 5_000

export interface RevocationList {
  /** Whether the in-memory list holds `jti` (however old the list is: {@link anyRevoked} is what requests use). */
  isRevoked(jti: string): boolean
  /**
   * Whether any of `keys` (a token id, a `client:` key) is revoked: from memory while the list is fresh, from the
   * database while it is stale. Rejects when the list is stale and the database does not answer.
   */
  anyRevoked(keys: readonly string[]): Promise<boolean>
  /** Records a revocation made by this instance (it is in the database already). */
  add(jti: string, expiresAt: Date): void
  /** Loads the current list, then keeps it in sync until `stop()`. */
  start(): Promise<void>
  stop(): Promise<void>
}

/**
 * How many of the newest values the first load checks for gaps: a revocation still uncommitted when an instance starts
 * is found like any late commit.
 */
const STARTUP_LOOKBACK = 1000n
/** The most gaps waited for at once (a rolled-back bulk insert leaves many); the oldest are dropped beyond it. */
const MAX_GAPS = 10_000

/** Creates the list over the `revoked_access_tokens` table. */
export function createRevocationList(deps: {
  db: Db
  clock: Clock
  logger: Logger
  intervalMs?: number
  /** How long a missing sequence value is waited for (default 60 s). */
  gapGraceMs?: number
  /** How long after its last successful sync the list is trusted (default {@link STALE_AFTER_MS}). */
  staleAfterMs?: number
}): RevocationList {
  const { db, clock, logger } = deps
  const gapGraceMs = deps.gapGraceMs ?? 60_000
  const staleAfterMs = deps.staleAfterMs ?? STALE_AFTER_MS
  /** When the last successful sync began (epoch ms): every row committed before then has been read. */
  let syncedAt = 0
  let warnedStale = false
  const revoked = new Map<string, number>()
  /** The highest sequence value read. */
  let highWater = 0n
  /** Values below `highWater` not read yet, each with when it was first missed (epoch ms), in ascending order. */
  const gaps = new Map<bigint, number>()
  let stopSync: (() => Promise<void>) | undefined

  // Rows are read as the login role: revocation is platform-wide state, like signing keys.
  async function load() {
    const now = clock()
    const newest = (await db.revokedAccessToken.aggregate({ _max: { seq: true } }))._max.seq ?? 0n
    highWater = newest > STARTUP_LOOKBACK ? newest - STARTUP_LOOKBACK : 0n
    const rows = await db.revokedAccessToken.findMany({
      where: { seq: { lte: highWater }, expiresAt: { gt: now } },
      select: { jti: true, expiresAt: true },
    })
    for (const row of rows) revoked.set(row.jti, row.expiresAt.getTime())
    await sync()
  }

  async function sync() {
    const now = clock().getTime()
    await read(now)
    syncedAt = now
    if (warnedStale) logger.info('revocation sync: in sync again, the list is trusted again')
    warnedStale = false
  }

  /** Asks the database whether any of `keys` is revoked and unexpired: the path while the list is stale. */
  async function revokedInDatabase(keys: readonly string[]): Promise<boolean> {
    if (!warnedStale) {
      logger.warn(
        { lastSyncedAt: syncedAt ? new Date(syncedAt).toISOString() : null, staleAfterMs },
        'revocation list stale: every token is checked against the database until a sync succeeds'
      )
      warnedStale = true
    }
    const row = await db.revokedAccessToken.findFirst({
      where: { jti: { in: [...keys] }, expiresAt: { gt: clock() } },
      select: { jti: true },
    })
    return row !== null
  }

  async function read(now: number) {
    for (const [seq, missedAt] of gaps) if (now - missedAt > gapGraceMs) gaps.delete(seq)
    const missing = [...gaps.keys()]
    const unseen = { seq: { gt: highWater } }
    const rows = await db.revokedAccessToken.findMany({
      where: missing.length > 0 ? { OR: [unseen, { seq: { in: missing } }] } : unseen,
      select: { jti: true, expiresAt: true, seq: true },
      orderBy: { seq: 'asc' },
    })
    for (const row of rows) {
      if (row.expiresAt.getTime() > now) revoked.set(row.jti, row.expiresAt.getTime())
      gaps.delete(row.seq)
      if (row.seq <= highWater) continue
      const bound = row.seq - BigInt(MAX_GAPS)
      for (let seq = highWater + 1n > bound ? highWater + 1n : bound; seq < row.seq; seq++) gaps.set(seq, now)
      highWater = row.seq
    }
    if (gaps.size > MAX_GAPS) {
      logger.warn(
        { gaps: gaps.size, kept: MAX_GAPS },
        'revocation sync: too many missing sequence values, oldest dropped'
      )
      for (const seq of gaps.keys()) {
        if (gaps.size <= MAX_GAPS) break
        gaps.delete(seq)
      }
    }
    for (const [jti, expiresAt] of revoked) if (expiresAt <= now) revoked.delete(jti)
  }

  return {
    isRevoked: (jti) => revoked.has(jti),
    async anyRevoked(keys) {
      if (keys.some((key) => revoked.has(key))) return true
      return clock().getTime() - syncedAt > staleAfterMs ? revokedInDatabase(keys) : false
    },
    add: (jti, expiresAt) => void revoked.set(jti, expiresAt.getTime()),
    async start() {
      // The first load is awaited (and fails the start): an instance must not accept tokens it cannot check.
      await load()
      stopSync = startBackgroundLoop({
        run: sync,
        intervalMs: deps.intervalMs ?? 1000,
        runAtStart: false,
        onError: (error) => logger.warn({ err: error }, 'revocation sync failed'),
      })
    },
    async stop() {
      await stopSync?.()
    },
  }
}
