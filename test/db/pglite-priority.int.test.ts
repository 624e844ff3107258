/**
 * The embedded server's one backend serves the worker's connections (application_name `therapy-worker`) behind the
 * API's: a request's statement does not queue behind webhook deliveries and workflow steps. A background connection
 * that has waited BACKGROUND_MAX_WAIT_MS is served anyway, so it is never starved.
 */
import pg from 'pg'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'

import { API_APPLICATION_NAME, WORKER_APPLICATION_NAME } from '../../infra/application-names.ts'
import { startEmbeddedPostgres, type EmbeddedPostgres } from '../../scripts/db/embedded-postgres.ts'
import { BACKGROUND_MAX_WAIT_MS } from '../../scripts/db/pglite-wire-server.ts'

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

let server: EmbeddedPostgres
const clients: pg.Client[] = []

beforeAll(async () => {
  server = await startEmbeddedPostgres({ port: 0, vacuumIntervalMs: 0 })
  const setup = await connect(API_APPLICATION_NAME)
  await setup.query('CREATE SEQUENCE turn')
})

afterAll(async () => {
  await Promise.all(clients.map((c) => c.end()))
  await server.stop()
})

async function connect(applicationName: string): Promise<pg.Client> {
  const client = new pg.Client({ connectionString: server.connectionString, application_name: applicationName })
  await client.connect()
  clients.push(client)
  return client
}

/** Which turn `client` got on the backend. */
const turn = async (client: pg.Client) =>
  Number((await client.query<{ n: string }>('SELECT nextval($1) AS n', ['turn'])).rows[0]!.n)

/** Connections of each kind, and one to hold the backend in a transaction while the others line up. */
async function lineUp() {
  const [holder, worker1, worker2, api] = await Promise.all([
    connect(API_APPLICATION_NAME),
    connect(WORKER_APPLICATION_NAME),
    connect(WORKER_APPLICATION_NAME),
    connect(API_APPLICATION_NAME),
  ])
  await holder.query('BEGIN')
  await holder.query('SELECT 1')
  return { holder, worker1, worker2, api }
}

describe('the embedded server serves the worker behind the API', () => {
  it('an API statement that arrived after two worker statements runs before them', async () => {
    const { holder, worker1, worker2, api } = await lineUp()
    const workerTurns = [turn(worker1), turn(worker2)]
    await sleep(10)
    const apiTurn = turn(api)
    await sleep(10)
    await holder.query('COMMIT')
    const [w1, w2, a] = await Promise.all([...workerTurns, apiTurn])
    expect(a).toBeLessThan(w1)
    expect(a).toBeLessThan(w2!)
    // Among themselves, the workers keep their order.
    expect(w1).toBeLessThan(w2!)
  })

  it('a worker statement that has waited long enough goes first', async () => {
    const { holder, worker1, api } = await lineUp()
    const workerTurn = turn(worker1)
    await sleep(BACKGROUND_MAX_WAIT_MS + 50)
    const apiTurn = turn(api)
    await sleep(10)
    await holder.query('COMMIT')
    const [w, a] = await Promise.all([workerTurn, apiTurn])
    expect(w).toBeLessThan(a)
  })
})
