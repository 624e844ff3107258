/**
 * The embedded PGlite server under concurrent clients: every statement of every pooled connection must get
 * its own answer, also while other connections' transactions fail, roll back to savepoints or run outside any
 * transaction. PGlite is a single backend shared by all connections, so the server has to keep each
 * connection's exchanges and transactions together and must never send a response (or a ReadyForQuery) too
 * many.
 *
 * The server runs in a child process, as in the suite (global setup serves the database from vitest's main
 * process, the tests query it from a worker): only then can a client read a response half-written by the
 * server, which is what exposed a stray ReadyForQuery after errors. Self-contained: starts its own in-memory
 * database.
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { randomUUID } from 'node:crypto'
import net from 'node:net'
import { fileURLToPath } from 'node:url'

import { PrismaPg } from '@prisma/adapter-pg'
import pg from 'pg'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'

import { PrismaClient } from '../../generated/prisma/client.ts'
import { applyMigrations } from '../../scripts/db/migrations.ts'
import { bind, cstr, exchange, execute, int32, parse, describePortal, query, sync } from '../support/wire-messages.ts'

const ROOT = fileURLToPath(new URL('../..', import.meta.url))
/** How long the mixed workload runs; the stray-response bug showed up within about a second of it. */
const STRESS_MS = 6_000

/** An embedded server in a child process, stopped by closing its stdin. */
interface ChildServer {
  connectionString: string
  stop(): Promise<void>
}

async function startChildServer(): Promise<ChildServer> {
  const script = `
    import { startEmbeddedPostgres } from ${JSON.stringify(`${ROOT}scripts/db/embedded-postgres.ts`)}
    const db = await startEmbeddedPostgres({ port: 0 })
    process.stdout.write(JSON.stringify({ url: db.connectionString }) + '\\n')
    process.stdin.resume()
    process.stdin.on('end', () => db.stop().then(() => process.exit(0)))
  `
  const child: ChildProcess = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '--eval', script], {
    cwd: ROOT,
    stdio: ['pipe', 'pipe', 'pipe'],
  })
  let output = ''
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()))
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()))
  const url = await new Promise<string>((resolve, reject) => {
    let line = ''
    child.stdout?.on('data', (chunk: Buffer) => {
      line += chunk.toString()
      const end = line.indexOf('\n')
      if (end >= 0) resolve((JSON.parse(line.slice(0, end)) as { url: string }).url)
    })
    child.once('exit', (code) => reject(new Error(`embedded server exited (${code}):\n${output}`)))
  })
  return {
    connectionString: url,
    async stop() {
      child.stdin?.end()
      const timer = setTimeout(() => child.kill('SIGKILL'), 10_000)
      await exited
      clearTimeout(timer)
    },
  }
}

/** The SQLSTATE of a `pg` error, or of the database error behind a Prisma error. */
function sqlState(error: unknown): string | undefined {
  const e = error as {
    severity?: string
    code?: string
    meta?: { driverAdapterError?: { cause?: { originalCode?: string } } }
  }
  // pg's DatabaseError has a severity; Prisma's own codes (P2010...) would look like a SQLSTATE.
  if (e.severity !== undefined) return e.code
  return e.meta?.driverAdapterError?.cause?.originalCode
}

describe('embedded PGlite server under concurrent pooled clients', () => {
  let server: ChildServer
  let app: PrismaClient
  let sweeper: PrismaClient
  let side: pg.Pool
  const failures: string[] = []

  beforeAll(async () => {
    server = await startChildServer()
    await applyMigrations(server.connectionString)
    app = new PrismaClient({ adapter: new PrismaPg({ connectionString: server.connectionString, max: 4 }) })
    sweeper = new PrismaClient({
      adapter: new PrismaPg({ connectionString: server.connectionString, max: 2 }),
    })
    side = new pg.Pool({ connectionString: server.connectionString, max: 3, query_timeout: 30_000 })
    await side.query(`INSERT INTO tenants (id, name) VALUES ('stress-dup', 'stress-dup')`)
  }, 120_000)

  afterAll(async () => {
    // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- unset when beforeAll failed before assigning it
    await Promise.allSettled([app?.$disconnect(), sweeper?.$disconnect(), side?.end()])
    // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- unset when beforeAll failed before assigning it
    await server?.stop()
  })

  /** Runs `op`; an error it did not expect, or a wrong answer it reported, is recorded as a failure. */
  async function record(name: string, op: () => Promise<void>): Promise<void> {
    try {
      await op()
    } catch (error) {
      failures.push(`${name}: ${error instanceof Error ? error.message : String(error)}`.slice(0, 600))
    }
  }

  function check(name: string, actual: unknown, expected: unknown): void {
    if (JSON.stringify(actual) !== JSON.stringify(expected)) {
      throw new Error(`${name}: got ${JSON.stringify(actual)}, expected ${JSON.stringify(expected)}`)
    }
  }

  /** Awaits `op`, which must fail with SQLSTATE `state`. */
  async function expectFailure(op: Promise<unknown>, state: string): Promise<void> {
    const outcome = await op.then(
      (value) => ({ ok: true as const, value }),
      (error: unknown) => ({ ok: false as const, error })
    )
    if (outcome.ok) throw new Error(`expected SQLSTATE ${state}, got ${JSON.stringify(outcome.value)}`)
    const actual = sqlState(outcome.error)
    if (actual !== state) {
      const message = outcome.error instanceof Error ? outcome.error.message : String(outcome.error)
      throw new Error(`expected SQLSTATE ${state}, got ${actual ?? 'none'}: ${message}`)
    }
  }

  const txOptions = { maxWait: 30_000, timeout: 30_000 }

  /** The unit-of-work pattern of infra/unit-of-work.ts, then queries whose answers are known. */
  const tenantTransaction = (marker: string) =>
    app.$transaction(async (tx) => {
      await tx.$executeRaw`
        SELECT set_config('app.tenant_id', ${marker}, true), set_config('role', 'therapy_app', true)`
      const rows = await tx.$queryRaw<{ marker: string; tenant: string; role: string }[]>`
        SELECT ${marker}::text AS marker, current_setting('app.tenant_id') AS tenant,
          current_user::text AS role`
      check('tenant transaction', rows, [{ marker, tenant: marker, role: 'therapy_app' }])
      check('child count', await tx.child.count(), 0)
    }, txOptions)

  /** The statement sequence of the failed integration test: set_config, then a count. */
  const roleThenCount = () =>
    app.$transaction(async (tx) => {
      await tx.$executeRaw`SELECT set_config('role', 'therapy_app', true)`
      check('count after set_config', await tx.child.count(), 0)
    }, txOptions)

  const permissionDenied = () =>
    expectFailure(
      app.$transaction(async (tx) => {
        await tx.$executeRaw`SELECT set_config('role', 'therapy_app', true)`
        return tx.signingKey.findMany()
      }, txOptions),
      '42501'
    )

  const rlsViolation = (marker: string) =>
    expectFailure(
      app.$transaction(async (tx) => {
        await tx.$executeRaw`
          SELECT set_config('app.tenant_id', ${marker}, true), set_config('role', 'therapy_app', true)`
        return tx.$executeRaw`INSERT INTO tenants (id, name) VALUES (${`other-${marker}`}, 'x')`
      }, txOptions),
      '42501'
    )

  const divisionByZero = (marker: string) =>
    expectFailure(
      app.$transaction(async (tx) => {
        await tx.$executeRaw`SELECT set_config('app.tenant_id', ${marker}, true)`
        return tx.$queryRaw`SELECT 1 / ${0}::int AS boom`
      }, txOptions),
      '22012'
    )

  const uniqueViolation = () =>
    expectFailure(
      app.$transaction(
        (tx) => tx.$executeRaw`INSERT INTO tenants (id, name) VALUES ('stress-dup', 'again')`,
        txOptions
      ),
      '23505'
    )

  /** Plain queries outside transactions, as the outbox sweeper of the API runs them. */
  const sweep = async (marker: string) => {
    check('sweep findMany', await sweeper.workflowOutbox.findMany({ where: { workflowId: marker } }), [])
    const rows = await sweeper.$queryRaw<{ marker: string }[]>`SELECT ${marker}::text AS marker`
    check('sweep marker', rows, [{ marker }])
  }

  const plainQuery = async (marker: string, n: number) => {
    const { rows } = await side.query('SELECT $1::text AS marker, $2::int AS n', [marker, n])
    check('plain query', rows, [{ marker, n }])
  }

  const plainFailure = () => expectFailure(side.query('SELECT 1 / $1::int AS boom', [0]), '22012')

  const simpleProtocol = async (marker: string) => {
    // No parameters: `pg` sends a simple Query message, here with two statements.
    const sql = `SELECT '${marker}' AS a; SELECT '${marker}-2' AS b`
    const results = (await side.query(sql)) as unknown as pg.QueryResult[]
    check(
      'simple protocol',
      results.map((r) => r.rows),
      [[{ a: marker }], [{ b: `${marker}-2` }]]
    )
  }

  const savepoints = async (marker: string) => {
    const client = await side.connect()
    let broken = false
    try {
      await client.query('BEGIN')
      await client.query(`SELECT set_config('app.tenant_id', $1, true)`, [marker])
      await client.query('SAVEPOINT before_error')
      await expectFailure(client.query('SELECT 1 / $1::int AS boom', [0]), '22012')
      await client.query('ROLLBACK TO SAVEPOINT before_error')
      const { rows } = await client.query(`SELECT $1::text AS marker, current_setting('app.tenant_id') AS tenant`, [
        marker,
      ])
      check('after savepoint', rows, [{ marker, tenant: marker }])
      await client.query('SAVEPOINT unique_attempt')
      const duplicate = client.query(`INSERT INTO tenants (id, name) VALUES ('stress-dup', $1)`, [marker])
      await expectFailure(duplicate, '23505')
      await client.query('ROLLBACK TO SAVEPOINT unique_attempt')
      await client.query('COMMIT')
    } catch (error) {
      broken = true
      await client.query('ROLLBACK').catch(() => undefined)
      throw error
    } finally {
      client.release(broken)
    }
  }

  it('answers every statement with its own result while transactions fail around it', async () => {
    const deadline = Date.now() + STRESS_MS
    let counter = 0
    const ops: Array<(marker: string, n: number) => Promise<void>> = [
      tenantTransaction,
      roleThenCount,
      permissionDenied,
      rlsViolation,
      divisionByZero,
      uniqueViolation,
      sweep,
      plainQuery,
      plainFailure,
      simpleProtocol,
      savepoints,
    ]
    const runs = new Map<string, number>()
    const loop = async (worker: number) => {
      while (Date.now() < deadline && failures.length < 20) {
        const n = counter++
        const op = ops[(n * 7 + worker) % ops.length]!
        const marker = `m-${worker}-${n}-${randomUUID().slice(0, 8)}`
        runs.set(op.name, (runs.get(op.name) ?? 0) + 1)
        await record(op.name, () => op(marker, n))
      }
    }
    await Promise.all(Array.from({ length: 10 }, (_, worker) => loop(worker)))
    expect(failures).toEqual([])
    // Every kind of statement sequence ran, repeatedly.
    expect(runs.size).toBe(ops.length)
    for (const [, count] of runs) expect(count).toBeGreaterThan(3)
  }, 120_000)
})

/**
 * A client speaking the wire protocol by hand, to check the exact backend messages, which `pg` hides: exactly
 * one ReadyForQuery per Sync, also after an error, whichever message of the exchange failed.
 */
describe('embedded PGlite wire protocol', () => {
  // In a child process, so that each write of the server is a read of its own here (see the module comment).
  let db: ChildServer
  let port: number

  beforeAll(async () => {
    db = await startChildServer()
    port = Number(new URL(db.connectionString).port)
  }, 60_000)

  afterAll(async () => {
    // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- unset when beforeAll failed before assigning it
    await db?.stop()
  })

  /** A connected raw client: `send` writes, `until` collects backend message types up to a ReadyForQuery. */
  async function connect() {
    const socket = net.connect({ port, host: '127.0.0.1' })
    let buffer = Buffer.alloc(0)
    const received: string[] = []
    let wake: (() => void) | undefined
    socket.on('data', (chunk: Buffer) => {
      buffer = Buffer.concat([buffer, chunk])
      while (buffer.length >= 5 && buffer.length >= 1 + buffer.readInt32BE(1)) {
        const type = String.fromCharCode(buffer[0]!)
        const end = 1 + buffer.readInt32BE(1)
        // ReadyForQuery carries the transaction status: I idle, T in a transaction, E in a failed one.
        received.push(type === 'Z' ? `Z${String.fromCharCode(buffer[5]!)}` : type)
        buffer = buffer.subarray(end)
      }
      wake?.()
    })
    await new Promise<void>((resolve, reject) => socket.once('connect', resolve).once('error', reject))
    const parameters = ['user', 'postgres', 'database', 'postgres', ''].map(cstr)
    const startup = Buffer.concat([int32(196608), ...parameters])
    socket.write(Buffer.concat([int32(startup.length + 4), startup]))

    /** Waits for `count` ReadyForQuery messages, and a moment more for a stray one; returns the types. */
    const until = async (count: number): Promise<string[]> => {
      const deadline = Date.now() + 10_000
      while (received.filter((t) => t.startsWith('Z')).length < count) {
        if (Date.now() > deadline) throw new Error(`timed out; received ${received.join(' ')}`)
        await new Promise<void>((resolve) => {
          wake = resolve
          setTimeout(resolve, 50)
        })
      }
      await new Promise((resolve) => setTimeout(resolve, 100))
      return received.splice(0).filter((t) => !['S', 'K'].includes(t))
    }
    await until(1)
    return { send: (data: Buffer) => socket.write(data), until, close: () => socket.destroy() }
  }

  it('sends one ReadyForQuery per Sync, also when a statement of the exchange fails', async () => {
    const client = await connect()
    try {
      // Fails at Parse (unknown relation), at Bind (constant folding plans 1/0) and at Execute.
      client.send(exchange('SELECT * FROM no_such_table'))
      expect(await client.until(1)).toEqual(['E', 'ZI'])
      client.send(exchange('SELECT 1/0'))
      expect(await client.until(1)).toEqual(['1', 'E', 'ZI'])
      client.send(exchange('SELECT 1/(SELECT 0)'))
      expect(await client.until(1)).toEqual(['1', '2', 'T', 'E', 'ZI'])

      client.send(query('BEGIN'))
      expect(await client.until(1)).toEqual(['C', 'ZT'])
      client.send(exchange('SELECT 1/(SELECT 0)'))
      expect(await client.until(1)).toEqual(['1', '2', 'T', 'E', 'ZE'])
      // In a failed transaction everything up to Sync is skipped, with one ReadyForQuery at the end.
      client.send(exchange('SELECT 1'))
      expect(await client.until(1)).toEqual(['E', 'ZE'])
      client.send(query('ROLLBACK'))
      expect(await client.until(1)).toEqual(['C', 'ZI'])

      client.send(exchange("SELECT 'still in step' AS marker"))
      expect(await client.until(1)).toEqual(['1', '2', 'T', 'D', 'C', 'ZI'])
    } finally {
      client.close()
    }
  })

  it('answers a transaction sent in one piece, a failing exchange in it, message by message', async () => {
    const client = await connect()
    try {
      // The server runs each exchange as one batch; the failure must skip to its own Sync, not past the ROLLBACK.
      // The third exchange's text is prepared by then, yet it fails at its Parse as PostgreSQL's would: no ParseComplete.
      client.send(
        Buffer.concat([
          query('BEGIN'),
          exchange('SELECT 1'),
          exchange('SELECT 1/0'),
          exchange('SELECT 1'),
          query('ROLLBACK'),
        ])
      )
      expect(await client.until(5)).toEqual([
        ...['C', 'ZT', '1', '2', 'T', 'D', 'C', 'ZT'],
        ...['1', 'E', 'ZE', 'E', 'ZE', 'C', 'ZI'],
      ])
      client.send(Buffer.concat([exchange('SELECT 1/0'), exchange("SELECT 'after' AS marker")]))
      expect(await client.until(2)).toEqual(['1', 'E', 'ZI', '1', '2', 'T', 'D', 'C', 'ZI'])
    } finally {
      client.close()
    }
  })

  it('keeps an exchange whose Sync comes later together, while another connection queries', async () => {
    const [a, b] = await Promise.all([connect(), connect()])
    try {
      a.send(Buffer.concat([parse("SELECT 'a' AS marker"), bind(), describePortal()]))
      await new Promise((resolve) => setTimeout(resolve, 50))
      b.send(exchange("SELECT 'b' AS marker"))
      await new Promise((resolve) => setTimeout(resolve, 50))
      a.send(Buffer.concat([execute(), sync()]))
      expect(await a.until(1)).toEqual(['1', '2', 'T', 'D', 'C', 'ZI'])
      expect(await b.until(1)).toEqual(['1', '2', 'T', 'D', 'C', 'ZI'])
    } finally {
      a.close()
      b.close()
    }
  })

  it('rolls back the transaction of a client that disconnects, even in a failed exchange', async () => {
    const a = await connect()
    a.send(query('BEGIN'))
    expect(await a.until(1)).toEqual(['C', 'ZT'])
    // The failed Execute starts skipping till Sync; the client vanishes before sending it.
    a.send(Buffer.concat([parse('SELECT 1/(SELECT 0)'), bind(), execute()]))
    await new Promise((resolve) => setTimeout(resolve, 100))
    a.close()

    const b = await connect()
    try {
      b.send(exchange("SELECT 'b' AS marker"))
      expect(await b.until(1)).toEqual(['1', '2', 'T', 'D', 'C', 'ZI'])
    } finally {
      b.close()
    }
  })
})

/** The server's statement cache (scripts/db/pglite-statement-cache.ts), seen through `pg` as an application uses it. */
describe('embedded PGlite statement cache', () => {
  let server: ChildServer
  let pool: pg.Pool

  beforeAll(async () => {
    server = await startChildServer()
    pool = new pg.Pool({ connectionString: server.connectionString, max: 3 })
    await pool.query('CREATE TABLE cached (id int PRIMARY KEY, label text)')
    await pool.query(`INSERT INTO cached SELECT i, 'row ' || i FROM generate_series(1, 20) i`)
  }, 60_000)

  afterAll(async () => {
    // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- unset when beforeAll failed before assigning it
    await pool?.end()
    // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- unset when beforeAll failed before assigning it
    await server?.stop()
  })

  const preparedAs = async (text: string) =>
    (await pool.query<{ name: string }>('SELECT name FROM pg_prepared_statements WHERE statement = $1', [text])).rows

  it('prepares a statement once for every connection, each execution with its own parameters', async () => {
    const text = 'SELECT id, label FROM cached WHERE id = $1'
    const clients = await Promise.all([pool.connect(), pool.connect(), pool.connect()])
    try {
      for (let round = 0; round < 10; round++) {
        const answers = await Promise.all(clients.map((client, i) => client.query(text, [round + i + 1])))
        expect(answers.map((a) => a.rows)).toEqual(
          [0, 1, 2].map((i) => [{ id: round + i + 1, label: `row ${round + i + 1}` }])
        )
      }
    } finally {
      for (const client of clients) client.release()
    }
    expect(await preparedAs(text)).toEqual([{ name: expect.stringMatching(/^pglite_s\d+$/) as unknown }])
  })

  it('answers with the new columns after a migration, and a text that fails to parse fails every time', async () => {
    const text = 'SELECT * FROM cached WHERE id = $1'
    expect((await pool.query(text, [1])).rows).toEqual([{ id: 1, label: 'row 1' }])
    await pool.query('ALTER TABLE cached ADD COLUMN note text')
    // A prepared statement cannot change the columns it returns; PostgreSQL would refuse to run the old one.
    expect((await pool.query(text, [1])).rows).toEqual([{ id: 1, label: 'row 1', note: null }])
    for (let i = 0; i < 2; i++) {
      await expect(pool.query('SELEC id FROM cached WHERE id = $1', [1])).rejects.toThrow(/syntax error/)
    }
    expect((await pool.query('SELECT count(*)::int AS n FROM cached WHERE id > $1', [10])).rows).toEqual([{ n: 10 }])
  })
})
