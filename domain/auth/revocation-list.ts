/**
 * @module The revoked access tokens, held in memory and synced from the database, so checking a token costs no
 * query. A revocation takes effect at once on the instance that received it and within the sync interval (one
 * second by default) on every other instance; entries leave the list when the token would have expired anyway.
 */
import { startBackgroundLoop } from '../../infra/background-loop.ts'
import type { Clock } from '../../infra/clock.ts'
import type { Db } from '../../infra/db.ts'
import type { Logger } from '../../infra/logger.ts'

export interface RevocationList {
  isRevoked(jti: string): boolean
  /** Records a revocation made by this instance (it is in the database already). */
  add(jti: string, expiresAt: Date): void
  /** Loads the current list, then keeps it in sync until `stop()`. */
  start(): Promise<void>
  stop(): Promise<void>
}

/** Creates the list over the `revoked_access_tokens` table. */
export function createRevocationList(deps: {
  db: Db
  clock: Clock
  logger: Logger
  intervalMs?: number
}): RevocationList {
  const { db, clock, logger } = deps
  const revoked = new Map<string, number>()
  let since = new Date(0)
  let stopSync: (() => Promise<void>) | undefined

  async function sync() {
    const now = clock()
    // Rows are read as the login role: revocation is platform-wide state, like signing keys.
    const rows = await db.revokedAccessToken.findMany({
      where: { revokedAt: { gte: since }, expiresAt: { gt: now } },
      select: { jti: true, expiresAt: true, revokedAt: true },
    })
    for (const row of rows) {
      revoked.set(row.jti, row.expiresAt.getTime())
      if (row.revokedAt > since) since = row.revokedAt
    }
    for (const [jti, expiresAt] of revoked) if (expiresAt <= now.getTime()) revoked.delete(jti)
  }

  return {
    isRevoked: (jti) => revoked.has(jti),
    add: (jti, expiresAt) => void revoked.set(jti, expiresAt.getTime()),
    async start() {
      // The first load is awaited (and fails the start): an instance must not accept tokens it cannot check.
      await sync()
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
