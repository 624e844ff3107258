/**
 * `npm run db:migrate`: applies pending migrations from prisma/migrations to DATABASE_OWNER_URL, or DATABASE_URL when it
 * is unset, like `prisma migrate deploy` (which needs the native engine this machine cannot download). With
 * DATABASE_OWNER_URL and DATABASE_APP_URL both set (the compose file's `migrate` service), it then makes the
 * platform's two logins, DATABASE_URL's and DATABASE_APP_URL's (scripts/db/application-logins.ts): the processes that
 * share that environment log in as them, and only this command holds the owner's password.
 */
import { provisionApplicationLogins } from './application-logins.ts'
import { applyMigrations } from './migrations.ts'

async function main(): Promise<void> {
  const { DATABASE_OWNER_URL: ownerUrl, DATABASE_URL: systemUrl, DATABASE_APP_URL: unitsUrl } = process.env
  const url = ownerUrl || systemUrl
  if (url === undefined || url === '') {
    console.error('DATABASE_URL is not set (e.g. postgresql://user:password@127.0.0.1:5432/app)')
    process.exit(2)
  }
  const verbose = process.argv.includes('--verbose') || process.argv.includes('-v')
  const { applied } = await applyMigrations(url, { log: verbose ? (msg) => console.log(msg) : undefined })
  if (applied.length === 0) {
    console.log('No pending migrations: the database is up to date.')
  } else {
    console.log(`Applied ${applied.length} migration(s):`)
    for (const name of applied) console.log(`  ${name}`)
  }
  if (ownerUrl && systemUrl && unitsUrl) {
    await provisionApplicationLogins(ownerUrl, { system: systemUrl, units: unitsUrl })
    console.log('The platform logins of DATABASE_URL and DATABASE_APP_URL are ready.')
  }
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error)
  process.exit(1)
})
