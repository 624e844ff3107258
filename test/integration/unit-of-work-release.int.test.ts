/**
 * `UnitOfWork.release` (infra/unit-of-work.ts) and the guard that enforces it (infra/network-guard.ts), on the file's
 * real database and the run's Temporal server: what a unit did before a release is committed, queries during the call
 * are refused, the next query begins a new transaction as the same tenant, a unit that then rolls back runs its
 * compensations, and a Temporal call made while a transaction is held fails before anything is sent. Also a snapshot
 * unit (`{ snapshot: true }`): one snapshot for all its reads, and no writes.
 */
import { Client } from '@temporalio/client'
import { randomUUID } from 'node:crypto'
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest'
import { closeDb, createDb, type Db } from '../../infra/db.ts'
import { TransactionHeldError, refuseInsideTransaction, rethrowIfTransactionHeld } from '../../infra/network-guard.ts'
import { lazyTemporalConnection, type TemporalConnection } from '../../infra/temporal-connection.ts'
import { runInUnitOfWork, type UnitOfWork } from '../../infra/unit-of-work.ts'
import { testDatabaseUrl } from '../support/file-database.ts'

let db: Db
let connection: TemporalConnection
let temporal: Client
const tenantId = `ten_${randomUUID()}`

beforeAll(async () => {
  db = createDb(testDatabaseUrl(), 4)
  connection = lazyTemporalConnection(inject('temporalAddress'), [refuseInsideTransaction])
  temporal = new Client({ connection: connection.connection, namespace: inject('temporalNamespace') })
})

afterAll(async () => {
  await connection.close()
  await closeDb(db)
})

/** The backend's id of the unit's transaction (a new one after each release). */
const transactionId = async (db: Db, tenant: string) =>
  runInUnitOfWork(db, tenant, async (uow) => {
    const [row] = await uow.tx.$queryRaw<Array<{ xid: string }>>`SELECT txid_current()::text AS xid`
    return row!.xid
  })

describe('UnitOfWork.release', () => {
  it('commits first, refuses queries during the call, and goes on in a new transaction as the same tenant', async () => {
    const seen = await runInUnitOfWork(db, tenantId, async (uow) => {
      const [before] = await uow.tx.$queryRaw<Array<{ xid: string }>>`SELECT txid_current()::text AS xid`
      const during = await uow.release(async () => {
        await expect(uow.tx.$queryRaw`SELECT 1`).rejects.toThrow(/released for a network call/)
        await expect(uow.execute('SELECT 1', [])).rejects.toThrow(/released for a network call/)
        return 'called'
      })
      const [after] = await uow.tx.$queryRaw<Array<{ xid: string; tenant: string }>>`
        SELECT txid_current()::text AS xid, current_setting('app.tenant_id') AS tenant`
      return { before: before!.xid, during, after: after! }
    })
    expect(seen.during).toBe('called')
    expect(seen.after.tenant).toBe(tenantId)
    expect(seen.after.xid).not.toBe(seen.before)
    expect(await transactionId(db, tenantId)).toMatch(/^\d+$/)
  })

  it('begins a transaction only for a query, with the unit savepoint in it, before and after a call', async () => {
    const marker = randomUUID()
    await db.$executeRawUnsafe(`CREATE TABLE IF NOT EXISTS savepoint_probe (marker text, step text)`)
    await db.$executeRawUnsafe(`GRANT ALL ON savepoint_probe TO therapy_app`)
    const write = (uow: UnitOfWork, step: string) =>
      uow.execute('INSERT INTO savepoint_probe (marker, step) VALUES ($1, $2)', [marker, step])
    await runInUnitOfWork(db, tenantId, async (uow) => {
      // Set before the unit's first query: sent with its BEGIN.
      await uow.savepoint('handler')
      await write(uow, 'first, undone')
      await uow.tx.$executeRaw`ROLLBACK TO SAVEPOINT handler`
      await write(uow, 'first, kept')
      await uow.release(async () => undefined)
      // Set again in the transaction begun after the call.
      await write(uow, 'second, undone')
      await uow.tx.$executeRaw`ROLLBACK TO SAVEPOINT handler`
    })
    const rows = await db.$queryRawUnsafe<Array<{ step: string }>>(
      'SELECT step FROM savepoint_probe WHERE marker = $1',
      marker
    )
    expect(rows.map((row) => row.step)).toEqual(['first, kept'])
    // A unit that never queries begins nothing; one whose last act is a release ends without another transaction.
    await expect(runInUnitOfWork(db, tenantId, async () => 'idle')).resolves.toBe('idle')
    await expect(runInUnitOfWork(db, tenantId, (uow) => uow.release(async () => 'done'))).resolves.toBe('done')
  })

  it('runs the compensations of a unit that rolls back after a release committed part of it', async () => {
    const marker = randomUUID()
    await db.$executeRawUnsafe(`CREATE TABLE IF NOT EXISTS release_probe (marker text)`)
    await db.$executeRawUnsafe(`GRANT ALL ON release_probe TO therapy_app`)
    await expect(
      runInUnitOfWork(db, tenantId, async (uow) => {
        await uow.execute('INSERT INTO release_probe (marker) VALUES ($1)', [marker])
        uow.compensate(async (later) => {
          await later.execute('DELETE FROM release_probe WHERE marker = $1', [marker])
        })
        await uow.release(async () => undefined)
        throw new Error('the rest of the request failed')
      })
    ).rejects.toThrow('the rest of the request failed')
    expect(await db.$queryRawUnsafe('SELECT marker FROM release_probe WHERE marker = $1', marker)).toEqual([])
  })
})

describe('a snapshot unit', () => {
  it('reads every statement from one snapshot, where a plain unit sees each commit, and refuses writes', async () => {
    const marker = randomUUID()
    await db.$executeRawUnsafe(`CREATE TABLE IF NOT EXISTS snapshot_probe (marker text)`)
    await db.$executeRawUnsafe(`GRANT ALL ON snapshot_probe TO therapy_app`)
    const count = async (uow: UnitOfWork) => {
      const [row] = await uow.tx.$queryRaw<Array<{ n: number }>>`
        SELECT count(*)::int AS n FROM snapshot_probe WHERE marker = ${marker}`
      return row!.n
    }
    const commitOne = () =>
      runInUnitOfWork(db, tenantId, (uow) => uow.execute('INSERT INTO snapshot_probe (marker) VALUES ($1)', [marker]))
    const readAroundACommit = (snapshot: boolean) =>
      runInUnitOfWork(
        db,
        tenantId,
        async (uow) => {
          const before = await count(uow)
          await commitOne()
          return { before, after: await count(uow) }
        },
        { snapshot }
      )

    // The embedded database has one backend for every unit, so no commit can come between two reads of one: there,
    // only the refusal of writes below applies.
    if (inject('databaseKind') === 'postgresql') {
      expect(await readAroundACommit(false)).toEqual({ before: 0, after: 1 })
      expect(await readAroundACommit(true)).toEqual({ before: 1, after: 1 })
    }
    await expect(
      runInUnitOfWork(db, tenantId, (uow) => uow.execute('INSERT INTO snapshot_probe (marker) VALUES ($1)', [marker]), {
        snapshot: true,
      })
    ).rejects.toThrow(/read-only transaction/)
  })
})

describe('the guard on Temporal calls', () => {
  it('refuses a call made while a transaction is held, before it is sent, and lets the released call through', async () => {
    const handle = temporal.workflow.getHandle(`no-such-workflow-${randomUUID()}`)
    await runInUnitOfWork(db, tenantId, async (uow) => {
      // The unit holds its transaction from its first query on.
      await uow.tx.$queryRaw`SELECT 1`
      // Temporal's client wraps what an interceptor throws; the guard's error is its cause.
      const refused: unknown = await handle.describe().catch((error: unknown) => error)
      expect(() => rethrowIfTransactionHeld(refused)).toThrow(TransactionHeldError)
      // Released: the call reaches Temporal, which answers that there is no such workflow.
      await expect(uow.release(() => handle.describe())).rejects.toThrow(/not found/i)
    })
    // Outside any unit (a background loop, an after-commit task) it is not the guard's business either.
    await expect(handle.describe()).rejects.toThrow(/not found/i)
  })
})

describe('UnitOfWork.commitWith and pipelined statements', () => {
  /** A statement the unit's tenant may run and leave a trace of: a row of its own table, created once. */
  const traceTable = async () => {
    await db.$executeRawUnsafe('CREATE TABLE IF NOT EXISTS uow_commit_with (tag text PRIMARY KEY)')
    await db.$executeRawUnsafe('GRANT ALL ON uow_commit_with TO therapy_app')
  }
  const traced = async (tag: string) =>
    (await db.$queryRawUnsafe<unknown[]>('SELECT 1 FROM uow_commit_with WHERE tag = $1', tag)).length === 1

  it('commits the trailing statement with the unit, also when the unit never queried or ended released', async () => {
    await traceTable()
    const tags = [randomUUID(), randomUUID(), randomUUID()]
    const sent: boolean[] = []
    await runInUnitOfWork(db, tenantId, async (uow) => {
      await uow.tx.$queryRaw`SELECT 1`
      uow.commitWith(`INSERT INTO uow_commit_with VALUES ('${tags[0]}')`, (s) => sent.push(s))
    })
    await runInUnitOfWork(db, tenantId, async (uow) => {
      uow.commitWith(`INSERT INTO uow_commit_with VALUES ('${tags[1]}')`, (s) => sent.push(s))
    })
    await runInUnitOfWork(db, tenantId, async (uow) => {
      await uow.tx.$queryRaw`SELECT 1`
      await uow.release(async () => undefined)
      uow.commitWith(`INSERT INTO uow_commit_with VALUES ('${tags[2]}')`, (s) => sent.push(s))
    })
    expect(sent).toEqual([true, true, true])
    for (const tag of tags) expect(await traced(tag)).toBe(true)
  })

  it('leaves the statement out of a transaction that already failed, and fails the unit when the statement fails', async () => {
    await traceTable()
    const tag = randomUUID()
    const sent: boolean[] = []
    // A refused statement whose error the unit's code swallowed: the COMMIT only rolls back.
    await runInUnitOfWork(db, tenantId, async (uow) => {
      await uow.tx.$queryRaw`SELECT 1/0`.catch(() => undefined)
      uow.commitWith(`INSERT INTO uow_commit_with VALUES ('${tag}')`, (s) => sent.push(s))
    })
    expect(sent).toEqual([false])
    expect(await traced(tag)).toBe(false)
    // The statement refused itself: nothing of the unit commits.
    const written = randomUUID()
    await expect(
      runInUnitOfWork(db, tenantId, async (uow) => {
        await uow.execute(`INSERT INTO uow_commit_with VALUES ($1)`, [written])
        uow.commitWith('INSERT INTO uow_commit_with VALUES (NULL)', (s) => sent.push(s))
      })
    ).rejects.toThrow(/null value/)
    expect(await traced(written)).toBe(false)
  })

  it('answers statements made at once on one unit each with its own result, pipelined', async () => {
    const answers = await runInUnitOfWork(db, tenantId, (uow) =>
      Promise.all(
        Array.from({ length: 8 }, (_, i) =>
          uow.tx.$queryRawUnsafe<Array<{ n: number; tenant: string }>>(
            `SELECT ${i}::int AS n, current_setting('app.tenant_id') AS tenant`
          )
        )
      )
    )
    expect(answers.map(([row]) => row)).toEqual(Array.from({ length: 8 }, (_, n) => ({ n, tenant: tenantId })))
  })
})
