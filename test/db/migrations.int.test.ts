/**
 * Migrations through the WASM schema engine against the embedded PGlite server: applied once even when two
 * callers race, recorded like `prisma migrate deploy`, and usable by the generated client over adapter-pg.
 * Self-contained: starts its own in-memory database rather than using the suite's shared one.
 */
import { createHash, randomUUID } from 'node:crypto'

import { PrismaPg } from '@prisma/adapter-pg'
import pg from 'pg'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'

import { PrismaClient } from '../../generated/prisma/client.ts'
import { startEmbeddedPostgres, type EmbeddedPostgres } from '../../scripts/db/embedded-postgres.ts'
import { readMigrationsList } from '../../scripts/db/migrations-dir.ts'
import { applyMigrations } from '../../scripts/db/migrations.ts'

interface MigrationRow {
  migration_name: string
  checksum: string
  finished_at: Date | null
  rolled_back_at: Date | null
  applied_steps_count: number
  logs: string | null
}

describe('applyMigrations on embedded PGlite', () => {
  let db: EmbeddedPostgres
  let committed: { name: string; sql: string }[]

  beforeAll(async () => {
    db = await startEmbeddedPostgres({ port: 0 })
    const list = await readMigrationsList()
    committed = list.migrationDirectories.map((d) => {
      if (d.migrationFile.content.tag !== 'ok') throw new Error(`unreadable migration ${d.path}`)
      return { name: d.path, sql: d.migrationFile.content.value }
    })
  }, 60_000)

  afterAll(async () => {
    // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- unset when beforeAll failed before assigning it
    await db?.stop()
  })

  it('applies every migration exactly once when two callers race', async () => {
    expect(committed.length).toBeGreaterThan(0)
    const results = await Promise.all([applyMigrations(db.connectionString), applyMigrations(db.connectionString)])
    const applied = results.map((r) => r.applied).sort((a, b) => b.length - a.length)
    expect(applied).toEqual([committed.map((m) => m.name), []])
  }, 60_000)

  it('is a no-op when the database is up to date', async () => {
    expect(await applyMigrations(db.connectionString)).toEqual({ applied: [] })
  }, 30_000)

  it('records _prisma_migrations as prisma migrate deploy does', async () => {
    const client = new pg.Client({ connectionString: db.connectionString })
    await client.connect()
    try {
      const { rows } = await client.query<MigrationRow>(
        `SELECT migration_name, checksum, finished_at, rolled_back_at, applied_steps_count, logs
         FROM _prisma_migrations ORDER BY migration_name`
      )
      expect(rows.map((r) => r.migration_name)).toEqual(committed.map((m) => m.name))
      for (const [i, row] of rows.entries()) {
        // The engine's checksum is the SHA-256 of the file; prisma migrate status compares exactly this.
        expect(row.checksum).toBe(
          createHash('sha256')
            .update(committed[i]?.sql ?? '')
            .digest('hex')
        )
        expect(row.finished_at).toBeInstanceOf(Date)
        expect(row.rolled_back_at).toBeNull()
        expect(row.applied_steps_count).toBe(1)
        expect(row.logs).toBeNull()
      }
    } finally {
      await client.end()
    }
  })

  it('serves the generated client through adapter-pg, interactive transactions included', async () => {
    const prisma = new PrismaClient({ adapter: new PrismaPg({ connectionString: db.connectionString }) })
    try {
      const id = randomUUID()
      await prisma.tenant.create({ data: { id, name: `Tenant ${id}` } })
      const found = await prisma.tenant.findUnique({ where: { id } })
      expect(found?.name).toBe(`Tenant ${id}`)
      expect(found?.createdAt).toBeInstanceOf(Date)

      const renamed = await prisma.$transaction(async (tx) => {
        await tx.tenant.update({ where: { id }, data: { name: `Renamed ${id}` } })
        return tx.tenant.findUniqueOrThrow({ where: { id } })
      })
      expect(renamed.name).toBe(`Renamed ${id}`)

      await expect(prisma.tenant.create({ data: { id: randomUUID(), name: `Renamed ${id}` } })).rejects.toMatchObject({
        code: 'P2002',
      })
    } finally {
      await prisma.$disconnect()
    }
  }, 30_000)

  it('can enable pgvector', async () => {
    const client = new pg.Client({ connectionString: db.connectionString })
    await client.connect()
    try {
      await client.query('CREATE EXTENSION IF NOT EXISTS vector')
      const { rows } = await client.query<{ d: number }>(`SELECT '[1,2,3]'::vector <-> '[1,2,4]'::vector AS d`)
      expect(rows[0]?.d).toBe(1)
    } finally {
      await client.end()
    }
  })
})
