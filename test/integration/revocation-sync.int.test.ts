/**
 * The revocation list's sync (domain/auth/revocation-list.ts) against the file's real database: a revocation made by
 * another instance reaches this one however late it commits. A row whose `revoked_at` is older than the newest the
 * list has seen (a long transaction, another instance's clock behind) and a row whose sequence value was taken before
 * a committed one's (two transactions committing out of order, also across an instance's start) are all picked up
 * (issue 55).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createRevocationList, type RevocationList } from '../../domain/auth/revocation-list.ts'
import { newId } from '../../domain/ids.ts'
import { systemClock } from '../../infra/clock.ts'
import { closeDb, createDb, type Db } from '../../infra/db.ts'
import { createLogger } from '../../infra/logger.ts'
import { testDatabaseUrl } from '../support/file-database.ts'
import { eventually } from '../support/platform.ts'
import { startTcpProxy } from '../support/tcp-proxy.ts'

let db: Db
let list: RevocationList

beforeAll(async () => {
  db = createDb(testDatabaseUrl(), 4)
  list = createRevocationList({ db, clock: systemClock, logger: createLogger('silent', 'test'), intervalMs: 50 })
  await list.start()
})

afterAll(async () => {
  // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- unset when beforeAll failed before assigning it
  await list?.stop()
  await closeDb(db)
})

/** Revokes a new token id as another instance would, `revokedAgoMs` before the database's now. */
async function revokeElsewhere(revokedAgoMs = 0, via: Pick<Db, '$executeRaw'> = db): Promise<string> {
  const jti = newId('accessToken')
  await via.$executeRaw`
    INSERT INTO revoked_access_tokens (jti, tenant_id, expires_at, revoked_at)
    VALUES (${jti}, 'ten_sync', now() + interval '10 minutes', now() - ${revokedAgoMs} * interval '1 millisecond')`
  return jti
}

const seen = (jti: string, timeoutMs = 3000) =>
  eventually(async () => Promise.resolve(list.isRevoked(jti) || undefined), timeoutMs, 20)

describe('revocation sync', () => {
  it('picks up a row committed after a newer one, whatever its revoked_at', async () => {
    await seen(await revokeElsewhere())
    // Committed now, stamped a minute ago: older than everything the list has seen.
    const late = await revokeElsewhere(60_000)
    await seen(late)
    expect(list.isRevoked(late)).toBe(true)
  })

  it('picks up a row whose sequence value was taken before a row committed first', async () => {
    let early = ''
    let later = ''
    await db.$transaction(
      async (tx) => {
        early = await revokeElsewhere(0, tx)
        // Another instance's revocation commits while this transaction is still open.
        later = await revokeElsewhere()
        await seen(later)
        expect(list.isRevoked(early)).toBe(false)
      },
      { timeout: 10_000 }
    )
    await seen(early)
    expect(list.isRevoked(early)).toBe(true)
  })

  it('picks up, on an instance that starts meanwhile, a row still uncommitted at its start', async () => {
    const starting = createRevocationList({
      db,
      clock: systemClock,
      logger: createLogger('silent', 'test'),
      intervalMs: 50,
    })
    try {
      let early = ''
      await db.$transaction(
        async (tx) => {
          early = await revokeElsewhere(0, tx)
          const later = await revokeElsewhere()
          await starting.start()
          expect(starting.isRevoked(later)).toBe(true)
          expect(starting.isRevoked(early)).toBe(false)
        },
        { timeout: 10_000 }
      )
      await eventually(async () => Promise.resolve(starting.isRevoked(early) || undefined), 3000, 20)
    } finally {
      await starting.stop()
    }
  })

  it('fails closed: a list that has not synced within its bound asks the database, and fails when it cannot', async () => {
    // A sync every minute and a bound of 200 ms: past the bound, the list is stale, as when its syncs fail.
    const url = new URL(testDatabaseUrl())
    const proxy = await startTcpProxy(`${url.hostname}:${url.port}`)
    url.host = proxy.address
    const listDb = createDb(url.toString(), 2)
    const stale = createRevocationList({
      db: listDb,
      clock: systemClock,
      logger: createLogger('silent', 'test'),
      intervalMs: 60_000,
      staleAfterMs: 200,
    })
    try {
      await stale.start()
      const revokedAfterStart = await revokeElsewhere()
      const neverRevoked = newId('accessToken')
      await new Promise((resolve) => setTimeout(resolve, 300))
      // Stale: the memory has not seen the revocation (no sync ran since), the database answers, token by token.
      expect(stale.isRevoked(revokedAfterStart)).toBe(false)
      expect(await stale.anyRevoked([neverRevoked, revokedAfterStart])).toBe(true)
      expect(await stale.anyRevoked([neverRevoked])).toBe(false)
      // Stale and the database unreachable: no answer rather than "not revoked".
      proxy.cut()
      await expect(stale.anyRevoked([neverRevoked])).rejects.toThrow()
    } finally {
      proxy.restore()
      await stale.stop()
      await closeDb(listDb)
      await proxy.close()
    }
  })
})
