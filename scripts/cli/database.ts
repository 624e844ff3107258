/** @module The operator commands' database: DATABASE_URL, or the embedded database of `npm start`. */
import { closeDb, createDb, type Db } from '../../infra/db.ts'
import { openLocalDatabase } from '../db/local-database.ts'

/** Runs `work` with a small client, and always releases it (and the embedded server, if one was started). */
export async function withDatabase<T>(work: (db: Db) => Promise<T>): Promise<T> {
  const database = await openLocalDatabase()
  const db = createDb(database.url, 2)
  try {
    return await work(db)
  } finally {
    await closeDb(db)
    await database.stop()
  }
}

/** Prints one JSON document, the commands' only output on success (so scripts can parse it). */
export const printJson = (value: unknown) => process.stdout.write(`${JSON.stringify(value, null, 2)}\n`)

/** A usage error: the message is the usage text. */
export class UsageError extends Error {}

/** The value of a required option, or a usage error naming it. */
export function required<T>(value: T | undefined, name: string, usage: string): T {
  if (value === undefined || value === '') throw new UsageError(`--${name} is required.\n\n${usage}`)
  return value
}
