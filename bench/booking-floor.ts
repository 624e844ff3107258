/**
 * @module The floor of a booking (issue 22): what any booking must at least do, served over HTTP in the benchmark's
 * process so that it is measured from outside exactly as `POST /v1/appointments` is (same client, same connections,
 * same rate). One request = one INSERT of an appointment-like row (autocommit, on the same database and pool as the
 * API) plus one start of a trivial workflow on the same Temporal server, answered 201. The workflow is started on a
 * task queue no worker polls: the floor is the start's round trip and the server's persisting it, nothing run after.
 */
import { serve } from '@hono/node-server'
import type { Client } from '@temporalio/client'
import { Hono } from 'hono'
import { randomUUID } from 'node:crypto'
import type { AddressInfo } from 'node:net'
import pg from 'pg'
import type { Db } from '../infra/db.ts'

export interface FloorServer {
  /** Where to POST (body: `{ providerId, childId, startsAt }`). */
  url: string
  /** The task queue of the floor's workflows (nobody polls it). */
  taskQueue: string
  stop(): Promise<void>
}

/** The row's shape: the columns an appointment row has, without its constraints, triggers or row-level security. */
const CREATE_TABLE = `CREATE TABLE IF NOT EXISTS bench_floor_appointments (
  id text PRIMARY KEY, tenant_id text NOT NULL, location_id text NOT NULL, child_id text NOT NULL,
  provider_id text NOT NULL, type text NOT NULL, service text NOT NULL, status text NOT NULL,
  starts_at timestamptz NOT NULL, ends_at timestamptz NOT NULL, time_zone text NOT NULL, notes text,
  created_at timestamptz NOT NULL DEFAULT now(), updated_at timestamptz NOT NULL DEFAULT now())`

/**
 * Creates the floor's table as the database's owner: the API's logins may not create tables (docs/security.md, "Least
 * privilege in the database"), and on PostgreSQL the bench stopped there. They are granted what the floor does.
 */
async function createFloorTable(ownerUrl: string): Promise<void> {
  const owner = new pg.Client({ connectionString: ownerUrl })
  await owner.connect()
  try {
    await owner.query(CREATE_TABLE)
    await owner.query('GRANT SELECT, INSERT ON bench_floor_appointments TO PUBLIC')
  } finally {
    await owner.end()
  }
}

/**
 * Serves the floor on a free loopback port.
 * @param db - the API's, whose pool and login the floor's INSERT shares
 * @param ownerUrl - the bench database's owner (bench-database.ts `url`), who creates the table
 */
export async function startFloor(db: Db, ownerUrl: string, temporal: Client, tenantId: string): Promise<FloorServer> {
  await createFloorTable(ownerUrl)
  const taskQueue = `bench-floor-${randomUUID().slice(0, 8)}`
  const app = new Hono().post('/floor', async (c) => {
    const body = await c.req.json<{ providerId: string; childId: string; startsAt: string }>()
    const id = `flr_${randomUUID()}`
    const startsAt = new Date(body.startsAt)
    await db.$executeRaw`INSERT INTO bench_floor_appointments
      (id, tenant_id, location_id, child_id, provider_id, type, service, status, starts_at, ends_at, time_zone)
      VALUES (${id}, ${tenantId}, 'loc_floor', ${body.childId}, ${body.providerId}, 'THERAPY_SESSION', 'speech',
        'CONFIRMED', ${startsAt}, ${new Date(startsAt.getTime() + 3_600_000)}, 'UTC')`
    await temporal.workflow.start('benchFloorWorkflow', {
      taskQueue,
      workflowId: `bench-floor-${id}`,
      args: [{ tenantId, appointmentId: id }],
    })
    return c.json({ id }, 201)
  })
  const server = await new Promise<ReturnType<typeof serve>>((resolve) => {
    const s = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }, () => resolve(s))
  })
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/floor`,
    taskQueue,
    stop: () => new Promise<void>((resolve) => server.close(() => resolve())),
  }
}
