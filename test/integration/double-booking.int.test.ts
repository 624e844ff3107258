/**
 * No provider and no child is ever double-booked, whatever the timing: many overlapping bookings fired at once
 * through HTTP find exactly one success, and the database itself (the exclusion constraints) refuses an overlap that
 * bypasses every application check. CI runs this file on PostgreSQL 15 as well, where the requests really overlap in
 * time on separate connections (docs/appointments.md explains why the outcome is the same there).
 */
import { randomUUID } from 'node:crypto'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { futureSlot } from '../support/fixtures.ts'
import { startPlatform, type Platform } from '../support/platform.ts'

let platform: Platform
let token: string
let tenantId: string
let locationId: string

beforeAll(async () => {
  platform = await startPlatform()
  const client = await platform.newTenant(['children', 'providers', 'bookings'])
  ;({ tenantId, locationId } = client)
  token = await platform.token(client)
})

afterAll(async () => {
  // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- unset when beforeAll failed before assigning it
  await platform?.stop()
})

const MINUTE = 60_000
const RACERS = 20

async function created(path: string, body: unknown): Promise<string> {
  const r = await platform.http.post(path, { token, body })
  if (r.status !== 201) throw new Error(`${path} answered ${r.status}: ${JSON.stringify(r.body)}`)
  return r.body.id as string
}
const newChild = () => created('/v1/children', { firstName: 'Sam', lastName: 'Reyes', dateOfBirth: '2022-02-02' })
const newProvider = () => created('/v1/providers', { name: 'Lee Park', timeZone: 'America/Chicago' })

/** Fires all bookings at once; answers the statuses and codes. */
async function race(bodies: Array<Record<string, unknown>>) {
  const responses = await Promise.all(
    bodies.map((body) =>
      platform.http.post('/v1/appointments', { token, body, headers: { 'Idempotency-Key': randomUUID() } })
    )
  )
  return responses
}

function expectExactlyOneWinner(responses: Awaited<ReturnType<typeof race>>) {
  const winners = responses.filter((r) => r.status === 201)
  const losers = responses.filter((r) => r.status !== 201)
  expect(winners).toHaveLength(1)
  expect(losers).toHaveLength(responses.length - 1)
  for (const r of losers) {
    expect(r.status).toBe(409)
    expect(r.body).toMatchObject({ code: 'slot_unavailable', status: 409 })
  }
  return winners[0]!.body as { id: string }
}

describe('concurrent overlapping bookings', () => {
  it(`books one of ${RACERS} overlapping requests for the same provider`, async () => {
    const providerId = await newProvider()
    const children = await Promise.all(Array.from({ length: RACERS }, newChild))
    const base = futureSlot(8).getTime()
    // Starts spread over 38 minutes, each an hour long: every pair overlaps.
    const responses = await race(
      children.map((childId, i) => ({ childId, providerId, startsAt: new Date(base + i * 2 * MINUTE).toISOString() }))
    )
    const winner = expectExactlyOneWinner(responses)
    const rows = await platform.api.deps.db.appointment.findMany({ where: { providerId, status: 'CONFIRMED' } })
    expect(rows.map((r) => r.id)).toEqual([winner.id])
  })

  it(`books one of ${RACERS} overlapping requests for the same child with different providers`, async () => {
    // Every provider is free, so only the child's constraint can refuse: this is the database deciding.
    const childId = await newChild()
    const providers = await Promise.all(Array.from({ length: RACERS }, newProvider))
    const base = futureSlot(9).getTime()
    const responses = await race(
      providers.map((providerId, i) => ({ childId, providerId, startsAt: new Date(base + i * MINUTE).toISOString() }))
    )
    const winner = expectExactlyOneWinner(responses)
    for (const r of responses.filter((x) => x.status === 409)) {
      expect(r.body.detail).toBe('The child already has an appointment that overlaps this time.')
    }
    const rows = await platform.api.deps.db.appointment.findMany({ where: { childId, status: 'CONFIRMED' } })
    expect(rows.map((r) => r.id)).toEqual([winner.id])
  })

  it('refuses to reschedule a child into an overlap with another provider', async () => {
    const childId = await newChild()
    const [p1, p2] = await Promise.all([newProvider(), newProvider()])
    const t = futureSlot(10)
    const a = await created('/v1/appointments', { childId, providerId: p1, startsAt: t.toISOString() })
    const b = await created('/v1/appointments', {
      childId,
      providerId: p2,
      startsAt: new Date(t.getTime() + 3 * 60 * MINUTE).toISOString(),
    })
    const moved = await platform.http.post(`/v1/appointments/${b}/reschedule`, {
      token,
      body: { startsAt: new Date(t.getTime() + 30 * MINUTE).toISOString() },
    })
    expect(moved.status).toBe(409)
    expect(moved.body).toMatchObject({
      code: 'slot_unavailable',
      detail: 'The child already has an appointment that overlaps this time.',
    })
    // Cancelling the first frees the child's time.
    expect(
      (await platform.http.post(`/v1/appointments/${a}/cancel`, { token, body: { reason: 'OTHER' } })).status
    ).toBe(200)
    const retried = await platform.http.post(`/v1/appointments/${b}/reschedule`, {
      token,
      body: { startsAt: new Date(t.getTime() + 30 * MINUTE).toISOString() },
    })
    expect(retried.status).toBe(200)
  })
})

describe('the exclusion constraints', () => {
  /** Inserts an appointment row directly, bypassing the API and every application check. */
  async function insertRaw(row: {
    childId: string
    providerId: string
    startsAt: Date
    minutes: number
    status?: string
  }) {
    const id = `apt_raw_${randomUUID().replace(/-/g, '')}`
    const endsAt = new Date(row.startsAt.getTime() + row.minutes * MINUTE)
    await platform.api.deps.db.$executeRawUnsafe(
      `INSERT INTO appointments (id, tenant_id, location_id, child_id, provider_id, type, status, starts_at, ends_at, time_zone, service, updated_at)
       VALUES ($1, $2, $3, $4, $5, 'THERAPY_SESSION', $6::"AppointmentStatus", $7, $8, 'America/Chicago', 'SPEECH_THERAPY', now())`,
      id,
      tenantId,
      locationId,
      row.childId,
      row.providerId,
      row.status ?? 'CONFIRMED',
      row.startsAt,
      endsAt
    )
    return id
  }

  const sqlState = (error: unknown) =>
    JSON.stringify(error, Object.getOwnPropertyNames(error ?? {})).match(/23P01/)?.[0]

  it('refuse an overlapping CONFIRMED row of the same provider or child, and nothing else', async () => {
    const [c1, c2, c3] = await Promise.all([newChild(), newChild(), newChild()])
    const [p1, p2] = await Promise.all([newProvider(), newProvider()])
    const t = futureSlot(11)
    await insertRaw({ childId: c1, providerId: p1, startsAt: t, minutes: 60 })

    const providerClash = await insertRaw({
      childId: c2,
      providerId: p1,
      startsAt: new Date(t.getTime() + 59 * MINUTE),
      minutes: 30,
    }).catch((e: unknown) => e)
    expect(providerClash).toBeInstanceOf(Error)
    expect(sqlState(providerClash)).toBe('23P01')
    expect(String((providerClash as Error).message)).toContain('appointments_provider_no_overlap')

    const childClash = await insertRaw({
      childId: c1,
      providerId: p2,
      startsAt: new Date(t.getTime() - 30 * MINUTE),
      minutes: 31,
    }).catch((e: unknown) => e)
    expect(sqlState(childClash)).toBe('23P01')
    expect(String((childClash as Error).message)).toContain('appointments_child_no_overlap')

    // Back to back, other parties, and non-CONFIRMED rows are all fine.
    await insertRaw({ childId: c2, providerId: p1, startsAt: new Date(t.getTime() + 60 * MINUTE), minutes: 60 })
    await insertRaw({ childId: c3, providerId: p2, startsAt: t, minutes: 60 })
    await insertRaw({ childId: c1, providerId: p1, startsAt: t, minutes: 60, status: 'CANCELLED' })
    // ...until a cancelled one is confirmed again over a confirmed one.
    const revived = await platform.api.deps.db
      .$executeRawUnsafe(
        `UPDATE appointments SET status = 'CONFIRMED' WHERE provider_id = $1 AND status = 'CANCELLED'`,
        p1
      )
      .catch((e: unknown) => e)
    expect(sqlState(revived)).toBe('23P01')
  })
})
