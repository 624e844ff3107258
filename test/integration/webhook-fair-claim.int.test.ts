/**
 * The pumps' claim shares the slots between tenants (domain/webhooks/delivery-queue.ts `claimDue`; docs/webhooks.md,
 * "Fair shares between tenants"), against the file's real database, one claim at a time: a tenant's backlog of older
 * due rows does not hide another tenant's, a tenant gets at most what it has left of its cap and nothing at it, the
 * rows come in turns between tenants, and a tenant whose rows are all another pump's takes no place in the claim.
 * No receiver and no pump here: webhook-fair-share.int.test.ts runs the whole thing on the platform.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { claimDue, fanOutEvents, type ClaimOptions } from '../../domain/webhooks/delivery-queue.ts'
import { newId } from '../../domain/ids.ts'
import { closeDb, createDb, type Db } from '../../infra/db.ts'
import { testDatabaseUrl } from '../support/file-database.ts'

let db: Db

beforeAll(() => {
  db = createDb(testDatabaseUrl(), 4)
})

afterAll(async () => {
  await closeDb(db)
})

// Each test's claims see only its own tenants: what an earlier one left due is ended.
afterEach(async () => {
  await db.$executeRaw`
    UPDATE webhook_deliveries SET status = 'FAILED', next_attempt_at = NULL, dispatch_lease_until = NULL
    WHERE status = 'PENDING'`
})

async function newTenant(): Promise<string> {
  const id = newId('tenant')
  await db.tenant.create({ data: { id, name: `fair-claim-${id}` } })
  return id
}

/** The partition (of `partitions`) an endpoint id falls in, by the claim's own rule. */
async function partitionOf(endpointId: string, partitions: number): Promise<number> {
  const [row] = await db.$queryRaw<Array<{ p: number }>>`
    SELECT mod(abs(hashtext(${endpointId})::bigint), ${partitions}::bigint)::int AS p`
  return row!.p
}

/** An enabled endpoint of `tenantId` subscribed to everything; in `partition` of 2 when given. */
async function endpoint(tenantId: string, partition?: number): Promise<string> {
  let id = newId('webhookEndpoint')
  while (partition !== undefined && (await partitionOf(id, 2)) !== partition) id = newId('webhookEndpoint')
  await db.webhookEndpoint.create({
    data: {
      id,
      tenantId,
      url: `http://127.0.0.1:9/${id}`,
      eventTypes: ['*'],
      enabled: true,
      signingScheme: 'V2',
      secret: 'whsec_dGVzdA==',
    },
  })
  return id
}

/** Records `count` events of `tenantId` and fans them out at `at`: its deliveries are due from then. */
async function dueAt(tenantId: string, count: number, at: Date): Promise<void> {
  await db.event.createMany({
    data: Array.from({ length: count }, () => ({
      id: newId('event'),
      tenantId,
      type: 'payment.succeeded',
      data: {},
      createdAt: at,
    })),
  })
  await fanOutEvents(db, at)
}

const base = (now: Date): ClaimOptions => ({
  partition: 0,
  partitions: 1,
  limit: 8,
  perEndpoint: 8,
  excludeEndpoints: [],
  perTenant: 4,
  now,
  leaseMs: 60_000,
})

/** How many of `claimed` each tenant got. */
const byTenant = (claimed: Array<{ tenantId: string }>) =>
  claimed.reduce((counts, d) => counts.set(d.tenantId, (counts.get(d.tenantId) ?? 0) + 1), new Map<string, number>())

describe('fair claims', () => {
  it("finds another tenant's due rows behind one tenant's backlog, and takes the rows in turns", async () => {
    const [a, b] = [await newTenant(), await newTenant()]
    await Promise.all([endpoint(a), endpoint(a), endpoint(b)])
    const start = Date.now() - 60_000
    // A's backlog: 400 deliveries due a minute before B's 3, far more than the claim's limit times four.
    await dueAt(a, 200, new Date(start))
    await dueAt(b, 3, new Date(start + 30_000))
    const now = new Date()
    // In turns: two rows are one of each tenant's, though all of A's are older.
    const first = await claimDue(db, { ...base(now), limit: 2 })
    expect(byTenant(first)).toEqual(
      new Map([
        [a, 1],
        [b, 1],
      ])
    )
    // Then each tenant up to its cap (4, one taken already), B's last two among them.
    const next = await claimDue(db, { ...base(now), takenByTenant: byTenant(first) })
    expect(byTenant(next)).toEqual(
      new Map([
        [a, 3],
        [b, 2],
      ])
    )
  })

  it('gives a tenant what it has left of its cap, and nothing at its cap', async () => {
    const [a, b] = [await newTenant(), await newTenant()]
    await Promise.all([endpoint(a), endpoint(b)])
    const at = new Date(Date.now() - 60_000)
    await dueAt(a, 20, at)
    await dueAt(b, 20, at)
    const now = new Date()
    const partly = await claimDue(db, { ...base(now), takenByTenant: new Map([[a, 3]]) })
    expect(byTenant(partly)).toEqual(
      new Map([
        [a, 1],
        [b, 4],
      ])
    )
    const full = await claimDue(db, { ...base(now), takenByTenant: new Map([[a, 4]]) })
    expect(full.every((d) => d.tenantId === b)).toBe(true)
  })

  it("lets no tenant whose rows are all another pump's take a place in the claim", async () => {
    const [a, b] = [await newTenant(), await newTenant()]
    await Promise.all([endpoint(a, 1), endpoint(b, 0)])
    const start = Date.now() - 60_000
    // A is older, but all of it belongs to partition 1; a claim of one row in partition 0 must still find B's.
    await dueAt(a, 50, new Date(start))
    await dueAt(b, 1, new Date(start + 30_000))
    const claimed = await claimDue(db, { ...base(new Date()), partitions: 2, limit: 1 })
    expect(claimed.map((d) => d.tenantId)).toEqual([b])
  })
})
