/**
 * Tenant isolation is enforced by PostgreSQL itself: inside a tenant's unit of work (role therapy_app, row-level
 * security on app.tenant_id) another tenant's rows cannot be read, written or guessed, even by a query that forgets
 * its tenant filter. Over HTTP, every resource type answers 404 across tenants, never data.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { runInUnitOfWork, type UnitOfWork } from '../../infra/unit-of-work.ts'
import { startPlatform, type Platform } from '../support/platform.ts'

let platform: Platform
let tokenA: string
let tokenB: string
let tenantA: string
let tenantB: string
const ids: Record<string, string> = {}

beforeAll(async () => {
  platform = await startPlatform({ withWorker: false })
  const [a, b] = await Promise.all([
    platform.newTenant(['children', 'providers', 'bookings']),
    platform.newTenant(['children', 'providers', 'bookings']),
  ])
  tenantA = a.tenantId
  tenantB = b.tenantId
  ;[tokenA, tokenB] = await Promise.all([platform.token(a), platform.token(b)])

  const child = await platform.http.post('/v1/children', {
    token: tokenA,
    body: { firstName: 'Noa', lastName: 'Berg', dateOfBirth: '2022-09-09' },
  })
  const provider = await platform.http.post('/v1/providers', {
    token: tokenA,
    body: { name: 'Ira Cole', timeZone: 'UTC' },
  })
  const startsAt = new Date(Date.now() + 3 * 24 * 3600 * 1000).toISOString()
  const appointment = await platform.http.post('/v1/appointments', {
    token: tokenA,
    body: { childId: child.body.id, providerId: provider.body.id, startsAt },
  })
  ids.child = child.body.id
  ids.provider = provider.body.id
  ids.appointment = appointment.body.id
  expect([child.status, provider.status, appointment.status]).toEqual([201, 201, 201])
})

afterAll(async () => {
  // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- unset when beforeAll failed before assigning it
  await platform?.stop()
})

describe('over HTTP', () => {
  it.each([
    ['child', '/v1/children/'],
    ['provider', '/v1/providers/'],
    ['appointment', '/v1/appointments/'],
  ])("answers 404 for another tenant's %s, exactly as for an id that does not exist", async (kind, prefix) => {
    const own = await platform.http.get(`${prefix}${ids[kind]}`, { token: tokenA })
    expect(own.status).toBe(200)
    const foreign = await platform.http.get(`${prefix}${ids[kind]}`, { token: tokenB })
    const missing = await platform.http.get(`${prefix}${ids[kind]!.slice(0, -4)}0000`, { token: tokenB })
    expect(foreign.status).toBe(404)
    expect(foreign.body.code).toBe('not_found')
    expect({ ...foreign.body, requestId: '', detail: '', instance: '' }).toEqual({
      ...missing.body,
      requestId: '',
      detail: '',
      instance: '',
    })
  })

  it("never lists another tenant's records", async () => {
    const list = await platform.http.get('/v1/providers?limit=100', { token: tokenB })
    expect(list.status).toBe(200)
    expect(list.body.data.map((p: { id: string }) => p.id)).not.toContain(ids.provider)
  })

  it("cannot book with another tenant's child or provider", async () => {
    const response = await platform.http.post('/v1/appointments', {
      token: tokenB,
      body: {
        childId: ids.child,
        providerId: ids.provider,
        startsAt: new Date(Date.now() + 5 * 86_400_000).toISOString(),
      },
    })
    expect(response.status).toBe(400)
    expect(response.body.errors.map((e: { code: string }) => e.code)).toEqual(['not_found', 'not_found'])
  })
})

describe('in the database', () => {
  const asTenant = <T>(tenantId: string, work: Parameters<typeof runInUnitOfWork<T>>[2]) =>
    runInUnitOfWork(platform.api.deps.db, tenantId, work)

  it('hides other tenants from queries that forget their tenant filter', async () => {
    const seen = await asTenant(tenantB, async ({ tx }) => ({
      children: await tx.child.findMany({ select: { tenantId: true } }),
      appointments: await tx.appointment.count({ where: { id: ids.appointment } }),
      tenants: await tx.tenant.findMany({ select: { id: true } }),
      raw: await tx.$queryRaw<Array<{ n: bigint }>>`SELECT count(*) AS n FROM children WHERE id = ${ids.child}`,
    }))
    expect(seen.children.every((c) => c.tenantId === tenantB)).toBe(true)
    expect(seen.appointments).toBe(0)
    expect(seen.tenants).toEqual([{ id: tenantB }])
    expect(Number(seen.raw[0]!.n)).toBe(0)
  })

  it("cannot update, delete or insert another tenant's rows", async () => {
    const { updated, deleted } = await asTenant(tenantB, async ({ tx }) => ({
      updated: await tx.child.updateMany({ where: { id: ids.child }, data: { firstName: 'Hacked' } }),
      deleted: await tx.appointment.deleteMany({ where: { id: ids.appointment } }),
    }))
    expect(updated.count).toBe(0)
    expect(deleted.count).toBe(0)
    const child = await platform.api.deps.db.child.findUniqueOrThrow({ where: { id: ids.child } })
    expect(child.firstName).toBe('Noa')

    await expect(
      asTenant(tenantB, ({ tx }) =>
        tx.child.create({
          data: {
            id: 'chd_forged',
            tenantId: tenantA,
            firstName: 'X',
            lastName: 'Y',
            dateOfBirth: new Date('2020-01-01'),
          },
        })
      )
    ).rejects.toThrow(/row-level security|policy/i)
  })

  it('protects every table that holds tenant data with row-level security, by construction', async () => {
    // A table added later without its policy fails here, not in production.
    const tables = await platform.api.deps.db.$queryRaw<
      Array<{ table: string; rls: boolean; forced: boolean; policies: bigint }>
    >`
      SELECT c.relname AS table, c.relrowsecurity AS rls, c.relforcerowsecurity AS forced,
             (SELECT count(*) FROM pg_policy p WHERE p.polrelid = c.oid) AS policies
      FROM pg_class c
      JOIN pg_namespace n ON n.oid = c.relnamespace AND n.nspname = current_schema()
      WHERE c.relkind = 'r'
        AND EXISTS (SELECT 1 FROM pg_attribute a WHERE a.attrelid = c.oid AND a.attname = 'tenant_id' AND NOT a.attisdropped)
      ORDER BY c.relname`
    expect(tables.length).toBeGreaterThan(10)
    const unprotected = tables.filter((t) => !t.rls || Number(t.policies) === 0).map((t) => t.table)
    expect(unprotected).toEqual([])
  })

  it("runs a unit's direct statements in its transaction, as its tenant, and refuses them once it has ended", async () => {
    let ended: UnitOfWork | undefined
    const seen = await asTenant(tenantB, async (uow) => {
      ended = uow
      await uow.execute("SELECT set_config('app.marker', $1, true)", ['set by execute'])
      const [row] = await uow.tx.$queryRaw<Array<{ tenant: string; role: string; marker: string }>>`
        SELECT current_setting('app.tenant_id') AS tenant, current_user AS role,
               current_setting('app.marker', true) AS marker`
      return row
    })
    expect(seen).toEqual({ tenant: tenantB, role: 'therapy_app', marker: 'set by execute' })
    // Its connection is back in the pool, perhaps in another tenant's unit by now.
    await expect(ended!.execute('SELECT 1', [])).rejects.toThrow(/has ended/)
  })

  it("runs each unit's reads on its own transaction when units of two tenants read in the same tick", async () => {
    // Prisma would batch these findUnique calls into one query sent from the first caller's context; units of work
    // must not let it (infra/unit-transactions.ts), or B's read would run on A's connection and find nothing.
    const ownChildB = await asTenant(tenantB, ({ tx }) =>
      tx.child.create({
        data: {
          id: `chd_tick${Date.now()}`,
          tenantId: tenantB,
          firstName: 'T',
          lastName: 'B',
          dateOfBirth: new Date('2021-01-01'),
        },
      })
    )
    for (let round = 0; round < 5; round++) {
      let release!: () => void
      const sameTick = new Promise<void>((resolve) => (release = resolve))
      const read = (tenantId: string, id: string) =>
        asTenant(tenantId, async ({ tx }) => {
          await sameTick
          return tx.child.findUnique({ where: { id }, select: { id: true, tenantId: true } })
        })
      const reads = Promise.all([read(tenantA, ids.child!), read(tenantB, ownChildB.id), read(tenantB, ids.child!)])
      await new Promise((resolve) => setTimeout(resolve, 50))
      release()
      expect(await reads).toEqual([{ id: ids.child, tenantId: tenantA }, { id: ownChildB.id, tenantId: tenantB }, null])
    }
  })

  it("makes Prisma's own transactions savepoints of the unit: a nested write commits or rolls back with its unit", async () => {
    // A create with nested creates is one Prisma operation that Prisma makes atomic with a transaction of its own.
    const nestedCreate = (tx: UnitOfWork['tx'], suffix: string) =>
      tx.location.create({
        data: {
          id: `loc_nest${suffix}`,
          tenantId: tenantB,
          name: 'Nested',
          timeZone: 'UTC',
          children: {
            create: [
              {
                id: `chd_nest${suffix}`,
                tenantId: tenantB,
                firstName: 'N',
                lastName: 'W',
                dateOfBirth: new Date('2021-01-01'),
              },
            ],
          },
        },
      })
    const failed = `${Date.now()}f`
    await expect(
      asTenant(tenantB, async ({ tx }) => {
        await nestedCreate(tx, failed)
        throw new Error('the unit fails after the write')
      })
    ).rejects.toThrow(/after the write/)
    const kept = `${Date.now()}k`
    await asTenant(tenantB, async ({ tx }) => {
      await nestedCreate(tx, kept)
      // A nested write that fails leaves the unit usable: only its savepoint rolls back.
      await expect(nestedCreate(tx, kept)).rejects.toThrow()
    })
    const db = platform.api.deps.db
    expect(
      await db.child.findMany({ where: { id: { in: [`chd_nest${failed}`, `chd_nest${kept}`] } }, select: { id: true } })
    ).toEqual([{ id: `chd_nest${kept}` }])
    expect(await db.location.count({ where: { id: `loc_nest${failed}` } })).toBe(0)
  })

  it('refuses the unit client outside a unit of work, and after its unit has timed out', async () => {
    const { client } = (await import('../../infra/db.ts')).unitTransactionsOf(platform.api.deps.db)
    await expect(client.child.count()).rejects.toThrow(/outside any unit of work/)
    await expect(
      runInUnitOfWork(
        platform.api.deps.db,
        tenantB,
        async ({ tx }) => {
          // The transaction, and its time, begin with the unit's first query.
          await tx.child.count()
          await new Promise((resolve) => setTimeout(resolve, 300))
          return tx.child.count()
        },
        { timeoutMs: 100 }
      )
    ).rejects.toThrow(/open longer than 100 ms and was rolled back/)
  })

  it('sees nothing at all without a tenant, and cannot leave the application role', async () => {
    const result = await platform.api.deps.db.$transaction(async (tx) => {
      await tx.$executeRaw`SELECT set_config('role', 'therapy_app', true)`
      return tx.child.count()
    })
    expect(result).toBe(0)
    await expect(
      asTenant(tenantB, ({ tx }) =>
        tx.$executeRaw`SELECT set_config('row_security', 'off', true)`.then(() =>
          tx.child.count({ where: { id: ids.child } })
        )
      )
    ).rejects.toThrow()
    const signingKeys = asTenant(tenantB, ({ tx }) => tx.signingKey.count())
    await expect(signingKeys).rejects.toThrow(/permission denied/i)
  })
})
