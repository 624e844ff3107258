/**
 * Tenant isolation is enforced by PostgreSQL itself: inside a tenant's unit of work (role therapy_app, row-level
 * security on app.tenant_id) another tenant's rows cannot be read, written or guessed, even by a query that forgets
 * its tenant filter; and, even for the database owner, whom row-level security does not bind, no row can name a row of
 * another tenant (foreign keys on (tenant_id, id)). Over HTTP, every resource type answers 404 across tenants, never
 * data.
 */
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest'
import { closeDb, createDb, databaseLogins, type Db } from '../../infra/db.ts'
import { assertLeastPrivilege } from '../../infra/login-privileges.ts'
import { createLogger } from '../../infra/logger.ts'
import { runInUnitOfWork, type UnitOfWork } from '../../infra/unit-of-work.ts'
import { testDatabaseUrl } from '../support/file-database.ts'
import { startPlatform, type Platform } from '../support/platform.ts'
import { newId } from '../../domain/ids.ts'

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

  const own = await recordsOf(tokenA, { child: 'Noa', provider: 'Ira Cole', inDays: 3 })
  ids.child = own.child
  ids.provider = own.provider
  ids.appointment = own.appointment
  // Tenant B's own records, which the foreign-key cases below try to point tenant A's rows at.
  const foreign = await recordsOf(tokenB, { child: 'Ona', provider: 'Tor Lund', inDays: 9 })
  ids.foreignChild = foreign.child
  ids.foreignProvider = foreign.provider
  ids.foreignAppointment = foreign.appointment
})

/** A child, a provider and an appointment between them, `inDays` from now, made through the API with `token`. */
async function recordsOf(token: string, names: { child: string; provider: string; inDays: number }) {
  const child = await platform.http.post('/v1/children', {
    token,
    body: { firstName: names.child, lastName: 'Berg', dateOfBirth: '2022-09-09' },
  })
  const provider = await platform.http.post('/v1/providers', { token, body: { name: names.provider, timeZone: 'UTC' } })
  const appointment = await platform.http.post('/v1/appointments', {
    token,
    body: {
      childId: child.body.id,
      providerId: provider.body.id,
      startsAt: new Date(Date.now() + names.inDays * 86_400_000).toISOString(),
    },
  })
  expect([child.status, provider.status, appointment.status]).toEqual([201, 201, 201])
  return {
    child: child.body.id as string,
    provider: provider.body.id as string,
    appointment: appointment.body.id as string,
  }
}

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
  let owner: Db
  beforeAll(() => {
    owner = createDb(testDatabaseUrl(), 1)
  })
  afterAll(() => closeDb(owner))
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
    // As the owner, the only login that is also a member of therapy_app (the platform's units log in as another).
    const result = await owner.$transaction(async (tx) => {
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

describe("foreign keys, which name a row of the referencing row's own tenant only", () => {
  // As the migrator (a member of the tables' owner), outside any unit of work: row-level security does not bind it, so
  // nothing but the foreign keys (tenant_id, col) -> (tenant_id, id) can refuse a reference to another tenant's row
  // (migration tenant_composite_foreign_keys). A single-column key would accept every statement below.
  const foreign: Record<string, string> = {}
  const own: Record<string, string> = {}

  /** The SQLSTATE and the messages of a refused statement, wherever Prisma and the driver adapter put them. */
  const refusal = async (statement: Promise<unknown>) => {
    const error = await statement.then(
      () => undefined,
      (e: unknown) => e
    )
    const found = { sqlState: '', text: '' }
    const visit = (value: unknown, depth: number): void => {
      if (typeof value !== 'object' || value === null || depth > 6) return
      const record = value as Record<string, unknown>
      for (const key of ['code', 'originalCode']) {
        if (typeof record[key] === 'string' && /^[0-9A-Z]{5}$/.test(record[key])) found.sqlState = record[key]
      }
      for (const key of ['message', 'originalMessage', 'constraint']) {
        if (typeof record[key] === 'string') found.text += ` ${record[key]}`
      }
      for (const key of ['cause', 'meta', 'driverAdapterError']) visit(record[key], depth + 1)
    }
    visit(error, 0)
    return found
  }

  beforeAll(async () => {
    const locations = await platform.db.$queryRaw<Array<{ id: string; location: string }>>`
      SELECT id, location_id AS location FROM appointments WHERE id IN (${ids.appointment}, ${ids.foreignAppointment})`
    const locationOf = (appointment: string | undefined) => locations.find((l) => l.id === appointment)?.location
    const suffix = Date.now()
    Object.assign(own, {
      child: ids.child,
      provider: ids.provider,
      appointment: ids.appointment,
      location: locationOf(ids.appointment),
      session: `ses_fk_own_${suffix}`,
    })
    Object.assign(foreign, {
      child: ids.foreignChild,
      provider: ids.foreignProvider,
      appointment: ids.foreignAppointment,
      location: locationOf(ids.foreignAppointment),
      session: `ses_fk_foreign_${suffix}`,
    })
  })

  /** A session of `tenantId` for `appointment`, with the rest of the appointment's own references. */
  const insertSession = (id: string, tenantId: string, appointment: string, fromAppointment: string) =>
    platform.db.$executeRaw`
      INSERT INTO sessions (id, tenant_id, appointment_id, child_id, provider_id, location_id,
                            scheduled_starts_at, scheduled_ends_at, time_zone, updated_at)
      SELECT ${id}, tenant_id, ${appointment}, child_id, provider_id, location_id, starts_at, ends_at, 'UTC', now()
      FROM appointments WHERE id = ${fromAppointment}`

  /** Each reference: its constraint, and the statement that makes tenant A's row name `target`. */
  const references: Array<[string, string, (target: Record<string, string>) => Promise<number>]> = [
    [
      "an appointment's provider",
      'appointments_provider_id_tenant_fkey',
      (t) => platform.db.$executeRaw`UPDATE appointments SET provider_id = ${t.provider} WHERE id = ${ids.appointment}`,
    ],
    [
      "an appointment's child",
      'appointments_child_id_tenant_fkey',
      (t) => platform.db.$executeRaw`UPDATE appointments SET child_id = ${t.child} WHERE id = ${ids.appointment}`,
    ],
    [
      "a child's location (a key whose ON DELETE sets the reference null)",
      'children_location_id_tenant_fkey',
      (t) => platform.db.$executeRaw`UPDATE children SET location_id = ${t.location} WHERE id = ${ids.child}`,
    ],
    [
      "a session's appointment",
      'sessions_appointment_id_tenant_fkey',
      (t) => insertSession(own.session!, tenantA, t.appointment!, ids.appointment!),
    ],
    [
      "a session note's session",
      'session_notes_session_id_tenant_fkey',
      (t) => platform.db.$executeRaw`
        INSERT INTO session_notes (id, tenant_id, session_id, created_by_type, updated_at)
        VALUES (${`snt_fk_${t === own ? 'own' : 'foreign'}`}, ${tenantA}, ${t.session}, 'USER', now())`,
    ],
  ]

  it.each(references)(
    "refuses %s in another tenant with SQLSTATE 23503, and takes the tenant's own",
    async (_, constraint, attempt) => {
      // Tenant B's session exists before A's note names it (its appointment is then taken: A's session must come first).
      if (constraint === 'session_notes_session_id_tenant_fkey') {
        await insertSession(foreign.session!, tenantB, foreign.appointment!, foreign.appointment!)
      }
      const refused = await refusal(attempt(foreign))
      expect(refused.sqlState).toBe('23503')
      expect(refused.text).toContain(constraint)
      await expect(attempt(own)).resolves.toBe(1)
    }
  )

  it('refuses moving a row to another tenant while it names rows of its own', async () => {
    const refused = await refusal(
      platform.db.$executeRaw`UPDATE appointments SET tenant_id = ${tenantB} WHERE id = ${ids.appointment}`
    )
    expect(refused.sqlState).toBe('23503')
    expect(refused.text).toMatch(/appointments_\w+_tenant_fkey/)
  })

  it('has no foreign key between two tenant tables that leaves out tenant_id, by construction', async () => {
    // A key added later as Prisma writes it (single-column) fails here: make it (tenant_id, col) -> (tenant_id, id).
    const keys = await platform.db.$queryRaw<Array<{ key: string; composite: boolean }>>`
      SELECT con.conrelid::regclass::text || '.' || con.conname AS key,
             EXISTS (SELECT 1 FROM generate_subscripts(con.conkey, 1) AS k
                     WHERE con.conkey[k] = ta.attnum AND con.confkey[k] = ra.attnum) AS composite
      FROM pg_constraint con
      JOIN pg_namespace n ON n.oid = con.connamespace AND n.nspname = current_schema()
      JOIN pg_attribute ta ON ta.attrelid = con.conrelid AND ta.attname = 'tenant_id' AND NOT ta.attisdropped
      JOIN pg_attribute ra ON ra.attrelid = con.confrelid AND ra.attname = 'tenant_id' AND NOT ra.attisdropped
      WHERE con.contype = 'f'
      ORDER BY 1`
    expect(keys.length).toBeGreaterThan(50)
    expect(keys.filter((k) => !k.composite).map((k) => k.key)).toEqual([])
  })
})

describe('the platform\'s database logins (docs/security.md, "Least privilege in the database")', () => {
  type Raw = { code?: unknown; originalCode?: unknown; cause?: unknown; meta?: Raw & { driverAdapterError?: unknown } }
  /** PostgreSQL's SQLSTATE, wherever Prisma and the driver adapter put it (Prisma's own codes are P and 4 digits). */
  const sqlStateOf = (error: unknown): string => {
    const found: string[] = []
    const visit = (e: Raw | null | undefined, depth: number): void => {
      if (!e || typeof e !== 'object' || depth > 6) return
      for (const code of [e.originalCode, e.code]) {
        if (typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code) && !/^P\d{4}$/.test(code)) found.push(code)
      }
      visit(e.meta, depth + 1)
      visit(e.meta?.driverAdapterError as Raw | undefined, depth + 1)
      visit(e.cause as Raw | undefined, depth + 1)
    }
    visit(error as Raw, 0)
    return found[0] ?? 'unknown'
  }
  /** Runs `statements` one after another in a unit of `tenantId`: the last one's rows, or the SQLSTATE it ended with. */
  const inUnit = (tenantId: string, ...statements: string[]) =>
    runInUnitOfWork(platform.api.deps.db, tenantId, async ({ tx }) => {
      let rows: Array<Record<string, unknown>> = []
      for (const sql of statements) rows = await tx.$queryRawUnsafe<Array<Record<string, unknown>>>(sql)
      return rows
    }).then(
      (rows) => ({ state: 'ok', rows }),
      (error: unknown) => ({ state: sqlStateOf(error), rows: [] })
    )
  /** The SQLSTATE of a statement of the system login, outside any unit ('ok' if it ran). */
  const asSystem = (sql: string) =>
    platform.api.deps.db.$executeRawUnsafe(sql).then(
      () => 'ok',
      (error: unknown) => sqlStateOf(error)
    )
  /** What pg_roles says of a login: superuser, owner of a table, member of a table's owner, of therapy_system. */
  const standing = async (login: string) => {
    const [row] = await platform.db.$queryRaw<
      Array<{ super: boolean; owns: boolean; ofOwner: boolean; system: boolean; app: boolean }>
    >`
      SELECT r.rolsuper OR r.rolbypassrls AS super,
             EXISTS (SELECT FROM pg_tables t WHERE t.schemaname = 'public' AND t.tableowner = r.rolname) AS owns,
             EXISTS (SELECT FROM pg_tables t
                      WHERE t.schemaname = 'public' AND pg_has_role(r.oid, t.tableowner, 'MEMBER')) AS "ofOwner",
             pg_has_role(r.oid, 'therapy_system', 'MEMBER') AS system,
             pg_has_role(r.oid, 'therapy_app', 'USAGE') AS app
        FROM pg_roles r WHERE r.rolname = ${login}`
    return row!
  }
  const others = () => `SELECT count(*)::int AS n FROM children WHERE tenant_id = '${tenantA}'`

  it('keeps the tables with a NOLOGIN owner, and runs the platform as two ordinary logins that cannot change them', async () => {
    const units = String((await inUnit(tenantA, 'SELECT session_user::text AS n')).rows[0]!.n)
    const [{ n: system }] = (await platform.api.deps.db.$queryRaw<
      Array<{ n: string }>
    >`SELECT session_user::text AS n`) as [{ n: string }]
    // Every table belongs to a role that cannot log in, on either database (migration 20261127110000_nologin_owner).
    const owners = await platform.db.$queryRaw<Array<{ owner: string; login: boolean }>>`
      SELECT DISTINCT t.tableowner::text AS owner, r.rolcanlogin AS login
        FROM pg_tables t JOIN pg_roles r ON r.rolname = t.tableowner
       WHERE t.schemaname IN ('public', 'ai_vectors')`
    expect(owners).toEqual([{ owner: 'therapy_owner', login: false }])
    if (inject('databaseKind') === 'pglite') {
      // The embedded database has one login, its superuser, for both: there the unit's role is the control.
      expect(units).toBe(system)
      expect((await standing(units)).super).toBe(true)
      return
    }
    expect(units).not.toBe(system)
    // The units' login holds nothing of its own: it neither inherits therapy_app nor can become therapy_system.
    expect(await standing(units)).toEqual({ super: false, owns: false, ofOwner: false, system: false, app: false })
    expect(await standing(system)).toEqual({ super: false, owns: false, ofOwner: false, system: true, app: false })
    expect({
      disableRls: await asSystem('ALTER TABLE children DISABLE ROW LEVEL SECURITY'),
      dropPolicy: await asSystem('DROP POLICY tenant_isolation ON children'),
      truncate: await asSystem('TRUNCATE webhook_deliveries'),
      ledger: await asSystem("DELETE FROM ledger_lines WHERE tenant_id = 'none'"),
      audit: await asSystem("UPDATE audit_events SET path = path WHERE tenant_id = 'none'"),
      migrations: await asSystem('SELECT count(*) FROM _prisma_migrations'),
      notes: await asSystem('SELECT count(*) FROM session_notes'),
    }).toEqual({
      disableRls: '42501',
      dropPolicy: '42501',
      truncate: '42501',
      ledger: '42501',
      audit: '42501',
      migrations: '42501',
      notes: '42501',
    })
  })

  it('reads secrets only through the functions that need them (issue 76, item 5)', async () => {
    const endpointId = newId('webhookEndpoint')
    await platform.db.webhookEndpoint.create({
      data: {
        id: endpointId,
        tenantId: tenantA,
        url: 'https://a.example/hooks',
        eventTypes: ['*'],
        signingScheme: 'V1',
        secret: 'whsec_not_sealed_here',
      },
    })
    /** The rows of a statement of the system login, or the SQLSTATE it ended with. */
    const systemReads = (sql: string) =>
      platform.api.deps.db.$queryRawUnsafe<Array<Record<string, unknown>>>(sql).then(
        (rows) => ({ state: 'ok', rows }),
        (error: unknown) => ({ state: sqlStateOf(error), rows: [] })
      )
    const ofEndpoint = `FROM webhook_endpoint_secrets(ARRAY['${endpointId}'])`
    // A pump keeps the sealed values while the endpoint's secrets_version stays; any change of a secret moves it.
    await platform.db.webhookEndpoint.update({ where: { id: endpointId }, data: { previousSecret: 'whsec_old' } })
    await platform.db.webhookEndpoint.update({ where: { id: endpointId }, data: { description: 'not a secret' } })
    expect(
      await platform.db.webhookEndpoint.findUniqueOrThrow({
        where: { id: endpointId },
        select: { secretsVersion: true },
      })
    ).toEqual({ secretsVersion: 1 })
    if (inject('databaseKind') === 'pglite') {
      // The embedded superuser reads every column; the functions answer as on a server.
      expect(await systemReads(`SELECT count(*)::int AS n ${ofEndpoint}`)).toEqual({ state: 'ok', rows: [{ n: 0 }] })
      return
    }
    expect({
      endpoint: (await systemReads(`SELECT secret FROM webhook_endpoints WHERE id = '${endpointId}'`)).state,
      previous: (await systemReads('SELECT previous_signing_key FROM webhook_endpoints LIMIT 1')).state,
      whole: (await systemReads('SELECT * FROM webhook_endpoints LIMIT 1')).state,
      overwrite: (await systemReads(`UPDATE webhook_endpoints SET secret = 'x' WHERE id = '${endpointId}'`)).state,
      agent: (await systemReads('SELECT webhook_secret FROM agent_workflows LIMIT 1')).state,
      signingKey: (await systemReads('SELECT private_jwk FROM signing_keys LIMIT 1')).state,
      otherColumns: (await systemReads(`SELECT url FROM webhook_endpoints WHERE id = '${endpointId}'`)).rows,
      // No delivery of the endpoint is under a pump's lease: the function answers nothing for it.
      unclaimed: (await systemReads(`SELECT count(*)::int AS n ${ofEndpoint}`)).rows,
      notASecret: (await systemReads("SELECT * FROM sealed_secret_samples('tenants', 'name')")).state,
      // A tenant's unit may call none of them.
      fromAUnit: (await inUnit(tenantA, `SELECT count(*) ${ofEndpoint}`)).state,
    }).toEqual({
      endpoint: '42501',
      previous: '42501',
      whole: '42501',
      overwrite: '42501',
      agent: '42501',
      signingKey: '42501',
      otherColumns: [{ url: 'https://a.example/hooks' }],
      unclaimed: [{ n: 0 }],
      notASecret: '42501',
      fromAUnit: '42501',
    })
  })

  it("reads no other tenant's rows after RESET ROLE inside a unit, and cannot become the system role", async () => {
    // The unit itself sees its own tenant's rows.
    expect((await inUnit(tenantA, others())).rows).toEqual([{ n: expect.any(Number) as number }])
    expect((await inUnit(tenantA, others())).rows[0]!.n).toBeGreaterThan(0)
    if (inject('databaseKind') === 'pglite') {
      // The embedded superuser is the login: resetting the role there reads everything (docs/security.md).
      expect(await inUnit(tenantB, 'RESET ROLE', others())).toMatchObject({ state: 'ok' })
      return
    }
    // As itself the units' login may read nothing at all: PostgreSQL refuses (42501) rather than counting.
    expect(await inUnit(tenantB, 'RESET ROLE', others())).toEqual({ state: '42501', rows: [] })
    expect(await inUnit(tenantB, "SELECT set_config('role', 'none', true)", others())).toEqual({
      state: '42501',
      rows: [],
    })
    expect(await inUnit(tenantB, 'SET LOCAL ROLE therapy_system', others())).toEqual({ state: '42501', rows: [] })
    expect(await inUnit(tenantB, 'SET LOCAL SESSION AUTHORIZATION DEFAULT', others())).toEqual({
      state: '42501',
      rows: [],
    })
  })
})

describe('a process that would log in with more than least privilege (issue 76)', () => {
  it('refuses to start as the tables’ owner unless development says so; the platform’s logins start', async () => {
    const logger = createLogger('silent', 'test')
    const owner = { system: testDatabaseUrl(), units: testDatabaseUrl() }
    const check = (logins: typeof owner, allowPrivileged = false) =>
      assertLeastPrivilege(logins, { allowPrivileged, logger })
    if (inject('databaseKind') === 'pglite') {
      // The embedded database's one login is its superuser: accepted, the unit's role is the control there.
      await expect(check(owner)).resolves.toBeUndefined()
      return
    }
    await expect(check(owner)).rejects.toThrow(
      /owns \d+ tables or can become their owner.*DATABASE_ALLOW_PRIVILEGED_LOGIN/s
    )
    await expect(check(owner, true)).resolves.toBeUndefined()
    await expect(check(databaseLogins(platform.config))).resolves.toBeUndefined()
  })
})
