/**
 * `npm run db:migrate`: applies pending migrations from prisma/migrations to DATABASE_URL, like
 * `prisma migrate deploy` (which needs the native engine this machine cannot download).
 */
import { applyMigrations } from './migrations.ts'

async function main(): Promise<void> {
  const url = process.env.DATABASE_URL
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
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error)
  process.exit(1)
})
