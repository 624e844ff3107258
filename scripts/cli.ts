/**
 * @module Operator commands. `npm run cli -- clients create --tenant "<name>" --scopes "<scopes>"` creates the tenant
 * if it does not exist (with one location) and an API client, and prints one JSON object with the credentials.
 */
import { parseArgs } from 'node:util'
import { verifyTenantChain } from '../domain/audit/verify-chain.ts'
import { createSigningKeys } from '../domain/auth/signing-keys.ts'
import { provisionClient } from '../domain/tenants/provision-client.ts'
import { systemClock } from '../infra/clock.ts'
import { createDb } from '../infra/db.ts'
import { runInUnitOfWork } from '../infra/unit-of-work.ts'
import { openLocalDatabase } from './db/local-database.ts'

const USAGE = `Usage:
  npm run cli -- clients create --tenant "<name>" --scopes "<space-separated scopes>" [--name "<client name>"] [--time-zone <IANA zone>]

  npm run cli -- keys rotate

  npm run cli -- audit verify --tenant <tenant id | platform> [--no-seal]

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

/**
 * Rotates the access-token signing key: new tokens are signed with a new key; the old one stays in the JWKS until
 * the tokens it signed have expired, so no valid token is invalidated.
 */
async function keysRotate() {
  const database = await openLocalDatabase()
  const db = createDb(database.url, 2)
  try {
    const config = { publishForSeconds: Number(process.env.ACCESS_TOKEN_TTL_SECONDS ?? 900) + 300, clock: systemClock }
    const kid = await createSigningKeys(db, config).rotate()
    process.stdout.write(`${JSON.stringify({ activeKid: kid })}\n`)
  } finally {
    await db.$disconnect()
    await database.stop()
  }
}

/**
 * Verifies a tenant's audit chain (`platform`: the chain of unauthenticated calls) and prints the same report as
 * GET /v1/audit-events/verify; exits 1 when it is broken. Seals what has committed first (`--no-seal`: does not, to
 * check that the API's sealer is running), then reads as the tenant, through row-level security, one short
 * transaction per batch.
 */
async function auditVerify(args: string[]) {
  const { values } = parseArgs({
    args,
    options: { tenant: { type: 'string' }, 'no-seal': { type: 'boolean', default: false } },
  })
  const tenantId = values.tenant
  if (!tenantId) throw new Error(USAGE)
  const database = await openLocalDatabase()
  const db = createDb(database.url, 2)
  try {
    const report = await verifyTenantChain((work) => runInUnitOfWork(db, tenantId, work), {
      seal: !values['no-seal'],
    })
    process.stdout.write(`${JSON.stringify(report, null, 2)}\n`)
    if (!report.valid) process.exitCode = 1
  } finally {
    await db.$disconnect()
    await database.stop()
  }
}

const [group, command, ...rest] = process.argv.slice(2)
try {
  if (group === 'clients' && command === 'create') await clientsCreate(rest)
  else if (group === 'keys' && command === 'rotate') await keysRotate()
  else if (group === 'audit' && command === 'verify') await auditVerify(rest)
  else throw new Error(USAGE)
} catch (error) {
  process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`)
  process.exitCode = 1
}
