/** @module The operator commands' context and database: DATABASE_URL, or the embedded database of `npm start`. */
import { secretsKeyringFrom } from '../../infra/secrets-keyring.ts'
import { closeDb, createDb, databaseLogins, type Db } from '../../infra/db.ts'
import { createSecretBox, type SecretBox } from '../../infra/secret-box.ts'
import { openLocalDatabase } from '../db/local-database.ts'

/**
 * What a command reads and writes in place of the process's own: the shipped entry (scripts/cli.ts) passes
 * `process.env` and standard output, a test its own, so that a command behaves the same in either.
 */
export interface CliContext {
  env: Readonly<Record<string, string | undefined>>
  /** Standard output: the command's one JSON document. */
  write(text: string): void
}

/** Runs `work` with a small client, and always releases it (and the embedded server, if one was started). */
export async function withDatabase<T>(cli: CliContext, work: (db: Db) => Promise<T>): Promise<T> {
  // On a server the commands run under what they are given, as the API does: DATABASE_URL, and DATABASE_APP_URL for
  // the units if set (a container's own two logins); migrating is `npm run db:migrate`'s, as the owner.
  const { DATABASE_URL, DATABASE_APP_URL } = cli.env
  const database = await openLocalDatabase({ env: cli.env, migrateServer: false })
  const db = createDb(DATABASE_URL ? databaseLogins({ DATABASE_URL, DATABASE_APP_URL }) : database.url, 2)
  try {
    return await work(db)
  } finally {
    await closeDb(db)
    await database.stop()
  }
}

/** The box of the secrets kept sealed, from SECRETS_ENCRYPTION_KEYS as the API and the worker read it. */
export const secretBoxOf = (cli: CliContext): SecretBox => createSecretBox(secretsKeyringFrom(cli.env))

/** Prints one JSON document, the commands' only output on success (so scripts can parse it). */
export const printJson = (cli: CliContext, value: unknown) => cli.write(`${JSON.stringify(value, null, 2)}\n`)
