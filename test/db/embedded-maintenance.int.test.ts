/**
 * The embedded PGlite's stand-in for autovacuum (scripts/db/embedded-maintenance.ts): with an interval set, the tables
 * of the served database that need it are vacuumed and analysed without anyone asking, also while another connection holds a transaction open
 * (the run waits for its turn rather than failing inside that transaction); with `0` it never is.
 */
import pg from 'pg'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'

import { startEmbeddedPostgres, type EmbeddedPostgres } from '../../scripts/db/embedded-postgres.ts'

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

let clients: pg.Client[] = []

afterEach(async () => {
  await Promise.all(clients.map((c) => c.end()))
  clients = []
})

/**
 * One server for the tests of a describe block, each test on tables of its own: starting a PGlite (its initdb) costs
 * about 5 s of CPU, and four starts made this file one of the suite's longest.
 */
function servedWith(vacuumIntervalMs: number): () => EmbeddedPostgres {
  let server: EmbeddedPostgres | undefined
  beforeAll(async () => {
    server = await startEmbeddedPostgres({ port: 0, vacuumIntervalMs })
  })
  afterAll(async () => {
    await server?.stop()
  })
  return () => server!
}

async function connect(url: string): Promise<pg.Client> {
  const client = new pg.Client({ connectionString: url })
  await client.connect()
  clients.push(client)
  return client
}

/** A queue-like table whose rows were each updated twice: dead row versions for VACUUM, no statistics yet. */
async function churn(client: pg.Client, table: string): Promise<void> {
  await client.query(`CREATE TABLE ${table} (id int PRIMARY KEY, state int NOT NULL)`)
  await client.query(`INSERT INTO ${table} SELECT g, 0 FROM generate_series(1, 2000) g`)
  await client.query(`UPDATE ${table} SET state = 1`)
  await client.query(`UPDATE ${table} SET state = 2`)
}

async function maintained(client: pg.Client, table: string) {
  const { rows } = await client.query<{ last_vacuum: Date | null; last_analyze: Date | null; reltuples: number }>(
    `SELECT s.last_vacuum, s.last_analyze, c.reltuples FROM pg_stat_user_tables s JOIN pg_class c ON c.oid = s.relid
     WHERE s.relname = $1`,
    [table]
  )
  return rows[0]!
}

async function until<T>(check: () => Promise<T | undefined>, timeoutMs = 10_000): Promise<T> {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const value = await check()
    if (value !== undefined) return value
    if (Date.now() > deadline) throw new Error('timed out')
    await sleep(50)
  }
}

describe('embedded database maintenance', () => {
  const server = servedWith(200)

  it('vacuums and analyses the served database at its interval', async () => {
    const client = await connect(server().connectionString)
    await churn(client, 'queue')
    const after = await until(async () => {
      const row = await maintained(client, 'queue')
      return row.last_vacuum && row.last_analyze ? row : undefined
    })
    expect(after.reltuples).toBe(2000)
  })

  it('leaves a table nothing changed alone, and analyses one that only grew', async () => {
    const client = await connect(server().connectionString)
    await client.query('CREATE TABLE still (id int PRIMARY KEY)')
    await client.query('CREATE TABLE grown (id int PRIMARY KEY)')
    await client.query('INSERT INTO grown SELECT g FROM generate_series(1, 500) g')
    const grown = await until(async () => {
      const { rows } = await client.query<{ last_analyze: Date | null }>(
        `SELECT last_analyze FROM pg_stat_user_tables WHERE relname = 'grown'`
      )
      return rows[0]?.last_analyze ? rows[0] : undefined
    })
    expect(grown.last_analyze).not.toBeNull()
    const { rows } = await client.query<{ last_vacuum: Date | null; last_analyze: Date | null }>(
      `SELECT last_vacuum, last_analyze FROM pg_stat_user_tables WHERE relname = 'still'`
    )
    expect(rows[0]).toEqual({ last_vacuum: null, last_analyze: null })
  })

  it('waits for a transaction another connection holds open, which commits untouched', async () => {
    const client = await connect(server().connectionString)
    await churn(client, 'held')
    const holder = await connect(server().connectionString)
    await holder.query('BEGIN')
    await holder.query('INSERT INTO held VALUES (2001, 0)')
    // Several intervals pass while the transaction is open; VACUUM inside it would fail or end it.
    await sleep(700)
    await holder.query('INSERT INTO held VALUES (2002, 0)')
    await holder.query('COMMIT')
    const { rows } = await client.query<{ n: string }>('SELECT count(*) AS n FROM held')
    expect(Number(rows[0]!.n)).toBe(2002)
    await until(async () => ((await maintained(client, 'held')).last_vacuum ? true : undefined))
  })
})

describe('embedded database maintenance turned off', () => {
  const server = servedWith(0)

  it('does nothing with an interval of 0', async () => {
    const client = await connect(server().connectionString)
    await churn(client, 'queue')
    await sleep(1000)
    const row = await maintained(client, 'queue')
    expect(row.last_vacuum).toBeNull()
    expect(row.last_analyze).toBeNull()
  })
})
