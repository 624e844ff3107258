/**
 * @module The test file's own database (see test-database.ts), opened before the file's first hook and closed after its
 * last. A setup file of the integration project, so every file has one; the file reads its URL with
 * {@link testDatabaseUrl}.
 *
 * The open database is kept on `globalThis`, not in a module variable: files share their worker's module cache
 * (`isolate: false`, vitest.config.ts), and vitest runs a fresh instance of this setup module before each file while
 * the support modules that read the URL keep the instance they first imported.
 */
import { afterAll, beforeAll, inject } from 'vitest'
import type { DatabaseLogins } from '../../infra/db.ts'
import { openTestDatabase, type DatabaseTemplate, type TestDatabase } from '../../scripts/db/test-database.ts'

const slot = Symbol.for('therapy-care.test-file-database')
const holder = globalThis as typeof globalThis & { [slot]?: TestDatabase }

/** The connection string of this test file's database. */
export function testDatabaseUrl(): string {
  const database = holder[slot]
  if (!database)
    throw new Error('the test database is not open: file-database.ts runs as a setup file of the integration project')
  return database.url
}

/**
 * What the platform's processes of this test file log in as (scripts/db/test-database.ts): on PostgreSQL two ordinary
 * logins, never the owner that `testDatabaseUrl` gives the tests' fixtures.
 */
export function testDatabaseLogins(): DatabaseLogins {
  const database = holder[slot]
  if (!database)
    throw new Error('the test database is not open: file-database.ts runs as a setup file of the integration project')
  return database.logins
}

beforeAll(async () => {
  // Runs wherever platform.ts is imported: the cluster tests (vitest.cluster.config.ts) use its helpers on a platform
  // of their own, with no template provided, and no file database to open.
  const template = inject('databaseTemplate') as DatabaseTemplate | undefined
  if (template) holder[slot] = await openTestDatabase(template)
}, 60_000)

afterAll(async () => {
  const database = holder[slot]
  holder[slot] = undefined
  await database?.stop()
})
