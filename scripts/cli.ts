/**
 * @module Operator commands. `npm run cli -- clients create --tenant "<name>" --scopes "<scopes>"` creates the tenant
 * if it does not exist (with one location) and an API client, and prints one JSON object with the credentials.
 */
import { parseArgs } from 'node:util'
import { provisionClient } from '../domain/tenants/provision-client.ts'
import { createDb } from '../infra/db.ts'
import { openLocalDatabase } from './db/local-database.ts'

const USAGE = `Usage:
  npm run cli -- clients create --tenant "<name>" --scopes "<space-separated scopes>" [--name "<client name>"] [--time-zone <IANA zone>]

Uses DATABASE_URL, or the embedded database of \`npm start\` when DATABASE_URL is not set.`

async function clientsCreate(args: string[]) {
  const { values } = parseArgs({
    args,
    options: {
      tenant: { type: 'string' },
      scopes: { type: 'string' },
      name: { type: 'string' },
      'time-zone': { type: 'string' },
    },
  })
  if (!values.tenant || !values.scopes) throw new Error(USAGE)
  const database = await openLocalDatabase()
  const db = createDb(database.url, 2)
  try {
    const created = await provisionClient(db, {
      tenantName: values.tenant,
      scopes: values.scopes.split(/\s+/).filter(Boolean),
      clientName: values.name,
      timeZone: values['time-zone'],
    })
    process.stdout.write(`${JSON.stringify(created, null, 2)}\n`)
  } finally {
    await db.$disconnect()
    await database.stop()
  }
}

const [group, command, ...rest] = process.argv.slice(2)
try {
  if (group === 'clients' && command === 'create') await clientsCreate(rest)
  else throw new Error(USAGE)
} catch (error) {
  process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`)
  process.exitCode = 1
}
