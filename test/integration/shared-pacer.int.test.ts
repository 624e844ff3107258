/**
 * The workflow-view pacer's turns in PostgreSQL (infra/shared-pacer-turns.ts): two pacers on two pools, as two API
 * instances have, pace one key together at the configured rate, where per-process turns would each allow the full
 * rate; and one refuses what the other's calls have already queued.
 */
import { randomInt } from 'node:crypto'
import pg from 'pg'
import { afterAll, describe, expect, it } from 'vitest'
import { AppError, rateLimited } from '../../domain/errors.ts'
import { createPacer, memoryTurns, type PacerTurns } from '../../infra/pacer.ts'
import { createLogger } from '../../infra/logger.ts'
import { sharedPacerTurns } from '../../infra/shared-pacer-turns.ts'
import { testDatabaseUrl } from '../support/file-database.ts'
import { startTcpProxy } from '../support/tcp-proxy.ts'

const pools: pg.Pool[] = []
afterAll(async () => {
  await Promise.all(pools.map((pool) => pool.end()))
})

/** A pool of this file's, whose idle connections may be ended by the server when the file's database is dropped. */
function testPool(config: pg.PoolConfig): pg.Pool {
  const pool = new pg.Pool(config)
  // Unheard, an idle connection's "terminating connection due to administrator command" is an uncaught error.
  pool.on('error', () => undefined)
  pools.push(pool)
  return pool
}

function instanceTurns(): PacerTurns {
  const pool = testPool({ connectionString: testDatabaseUrl(), max: 2 })
  return sharedPacerTurns({ pool, logger: createLogger('silent', 'test') })
}

/** Two pacers, as two instances have, recording each call's wait instead of sleeping it. */
function twoInstances(turns: [PacerTurns, PacerTurns], { perSecond = 10, maxWaitMs = 10_000 } = {}) {
  const waits: number[] = []
  const options = {
    perSecond,
    burst: 1,
    maxWaitMs,
    what: 'Views',
    refuse: rateLimited,
    sleep: async (ms: number) => void waits.push(ms),
  }
  return { pacers: turns.map((t) => createPacer({ ...options, turns: t })), waits }
}

/**
 * Takes `key`'s turn `count` times, alternating between the pacers, and checks that the k-th call (after the first)
 * was given the turn `k × intervalMs` after the first call's. The store read its clock at some moment during each
 * call, so a call's turn (its wait plus the time since the first call) is known within the calls' durations.
 */
async function expectTurnsEvery(
  intervalMs: number,
  count: number,
  pacers: Array<{ take(key: string): Promise<void> }>,
  waits: number[],
  key: string
) {
  const calls: Array<{ start: number; end: number }> = []
  for (let i = 0; i < count; i++) {
    const start = performance.now()
    await pacers[i % pacers.length]!.take(key)
    calls.push({ start, end: performance.now() })
  }
  expect(waits).toHaveLength(count - 1)
  const first = calls[0]!
  waits.forEach((wait, i) => {
    const call = calls[i + 1]!
    const slack = 2 // whole-millisecond clocks
    expect(wait + call.start - first.end - slack).toBeLessThanOrEqual((i + 1) * intervalMs)
    expect(wait + call.end - first.start + slack).toBeGreaterThanOrEqual((i + 1) * intervalMs)
  })
}

describe('the shared pacer', () => {
  it('paces one key at the configured rate across two instances', async () => {
    const { pacers, waits } = twoInstances([instanceTurns(), instanceTurns()])
    const key = `tenant-${randomInt(1e9)}`
    // Connected first, so that no call's time is mostly a connection's.
    for (const pacer of pacers) await pacer.take(`warm-up-${randomInt(1e9)}`)
    // 10 a second together: each call a turn (100 ms) after the one before, whichever instance took it.
    await expectTurnsEvery(100, 8, pacers, waits, key)
  })

  it('refuses, on either instance, a turn the other instance has already pushed too far away', async () => {
    // One a second, waiting at most 1.5 s: the first two calls are taken (at once, then 1 s away), the third would be
    // 2 s away (less the calls' few ms).
    const { pacers } = twoInstances([instanceTurns(), instanceTurns()], { perSecond: 1, maxWaitMs: 1500 })
    const key = `tenant-${randomInt(1e9)}`
    for (let i = 0; i < 2; i++) await pacers[0]!.take(key)
    const refused = await pacers[1]!.take(key).catch((error: unknown) => error)
    expect(refused).toBeInstanceOf(AppError)
    expect((refused as AppError).code).toBe('rate_limited')
  })

  it('is what per-process turns are not: two memory pacers each allow the full rate', async () => {
    const clock = () => 1_000_000
    const { pacers, waits } = twoInstances([memoryTurns(clock), memoryTurns(clock)])
    for (let i = 0; i < 8; i++) await pacers[i % 2]!.take('tenant')
    expect(waits).toEqual([100, 100, 200, 200, 300, 300])
  })

  it('paces in the process at a tenth of the rate while the database is unreachable, counting each failure', async () => {
    const url = new URL(testDatabaseUrl())
    const proxy = await startTcpProxy(`${url.hostname}:${url.port || 5432}`)
    const [host, port] = proxy.address.split(':') as [string, string]
    Object.assign(url, { hostname: host, port })
    const pool = testPool({ connectionString: url.toString(), max: 1, connectionTimeoutMillis: 1000 })
    let storeErrors = 0
    const turns = sharedPacerTurns({ pool, logger: createLogger('silent', 'test'), onStoreError: () => storeErrors++ })
    const { pacers, waits } = twoInstances([turns, turns])
    try {
      proxy.cut()
      // A turn a second (a tenth of 10): not the full rate each instance would otherwise allow on its own.
      await expectTurnsEvery(1000, 3, [pacers[0]!], waits, 'tenant-during-outage')
      expect(storeErrors).toBe(3)
    } finally {
      await proxy.close()
    }
  })
})
