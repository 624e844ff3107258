/**
 * @module The test file's own database (see test-database.ts), opened before the file's first hook and closed after its
 * last. A setup file of the integration project, so every file has one; the file reads its URL with
 * {@link testDatabaseUrl}.
 */
import { afterAll, beforeAll, inject } from 'vitest'
import { openTestDatabase, type TestDatabase } from './test-database.ts'

let database: TestDatabase | undefined

/** The connection string of this test file's database. */
export function testDatabaseUrl(): string {
  if (!database)
    throw new Error('the test database is not open: file-database.ts runs as a setup file of the integration project')
  return database.url
}

beforeAll(async () => {
  database = await openTestDatabase(inject('databaseTemplate'))
}, 60_000)

afterAll(async () => {
  await database?.stop()
  database = undefined
})
