/**
 * @module The database the integration tests run against: a fresh scratch database on the PostgreSQL server named by
 * TEST_DATABASE_URL (CI installs one, so concurrency tests meet a real multi-connection server), or an embedded
 * in-memory PGlite when nothing is configured. Migrations are applied with the project's own migration command.
 */
import { randomBytes } from 'node:crypto'
import pg from 'pg'
import { startEmbeddedPostgres } from '../../scripts/db/embedded-postgres.ts'
import { applyMigrations } from '../../scripts/db/migrations.ts'

export interface TestDatabase {
  url: string
  kind: 'postgresql' | 'pglite'
  stop(): Promise<void>
}

/** Provisions and migrates the test database. */
export async function provisionTestDatabase(): Promise<TestDatabase> {
  const serverUrl = process.env.TEST_DATABASE_URL
  if (!serverUrl) {
    const embedded = await startEmbeddedPostgres({ port: 0 })
    await applyMigrations(embedded.connectionString)
    return { url: embedded.connectionString, kind: 'pglite', stop: () => embedded.stop() }
  }
  const name = `therapy_test_${randomBytes(4).toString('hex')}`
  const admin = new pg.Client({ connectionString: serverUrl })
  await admin.connect()
  await admin.query(`CREATE DATABASE ${name}`)
  await admin.end()
  const url = new URL(serverUrl)
  url.pathname = `/${name}`
  await applyMigrations(url.toString())
  return {
    url: url.toString(),
    kind: 'postgresql',
    async stop() {
      const client = new pg.Client({ connectionString: serverUrl })
      await client.connect()
      await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)
      await client.end()
    },
  }
}
