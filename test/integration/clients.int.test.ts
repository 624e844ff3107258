/**
 * Clients (parents, guardians, payers) over HTTP against the real API and database: create and read, cursor
 * pagination in every sort, filters, JSON merge patch, archiving, validation problems and tenant isolation.
 * Custom field validation is in custom-fields.int.test.ts.
 */
import { randomBytes } from 'node:crypto'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { newId } from '../../domain/ids.ts'
import { runInUnitOfWork } from '../../infra/unit-of-work.ts'
import { startPlatform, type Platform } from '../support/platform.ts'
import { walkPages } from '../support/walk-pages.ts'

let platform: Platform
let token: string
let tenantId: string
let locationId: string
let otherToken: string

const tag = () => randomBytes(4).toString('hex')

beforeAll(async () => {
  platform = await startPlatform({ withWorker: false })
  const client = await platform.newTenant(['clients', 'children'])
  tenantId = client.tenantId
  locationId = client.locationId
  token = await platform.token(client)
  otherToken = await platform.token(await platform.newTenant(['clients']))
})

afterAll(async () => {
  // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- unset when beforeAll failed before assigning it
  await platform?.stop()
})

const post = (body: unknown, t = token) => platform.http.post('/v1/clients', { token: t, body })
const patch = (id: string, body: unknown, t = token, contentType = 'application/merge-patch+json') =>
  platform.http.request('PATCH', `/v1/clients/${id}`, { token: t, body, headers: { 'Content-Type': contentType } })
const remove = (id: string, t = token) => platform.http.request('DELETE', `/v1/clients/${id}`, { token: t })

/** A tenant of its own, so lists hold exactly what the test made. */
async function freshTenant(scopes = ['clients', 'children']) {
  const client = await platform.newTenant(scopes)
  return { ...client, token: await platform.token(client) }
}

describe('POST /v1/clients', () => {
  it('creates a client and reads it back, with a Location header and an audit record naming it', async () => {
    const response = await post({
      firstName: 'Amara',
      lastName: 'Okafor',
      email: 'amara.okafor@example.org',
      phone: '+13125550100',
      preferredLanguage: 'es-mx',
      address: { line1: '12 Elm St', city: 'Chicago', region: 'IL', postalCode: '60601', country: 'US' },
      roles: ['PARENT', 'PAYER'],
    })
    expect(response.status).toBe(201)
    const client = response.body
    expect(client).toMatchObject({
      locationId,
      firstName: 'Amara',
      lastName: 'Okafor',
      email: 'amara.okafor@example.org',
      phone: '+13125550100',
      preferredLanguage: 'es-MX',
      address: { line1: '12 Elm St', city: 'Chicago', region: 'IL', postalCode: '60601', country: 'US' },
      roles: ['PARENT', 'PAYER'],
      custom_fields: {},
      archivedAt: null,
    })
    expect(client.id).toMatch(/^cln_[0-9a-f]{32}$/)
    expect(client.createdAt).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/)
    expect(response.headers.get('location')).toBe(`/v1/clients/${client.id}`)

    const read = await platform.http.get(`/v1/clients/${client.id}`, { token })
    expect(read.status).toBe(200)
    expect(read.body).toEqual(client)

    const audit = await runInUnitOfWork(platform.api.deps.db, tenantId, (uow) =>
      uow.tx.auditEvent.findMany({ where: { tenantId, resourceId: client.id }, orderBy: { occurredAt: 'asc' } })
    )
    expect(audit.map((a) => [a.method, a.resourceType, a.status, a.locationId])).toEqual([
      ['POST', 'clients', 201, locationId],
      ['GET', 'clients', 200, locationId],
    ])
  })

  it('needs only a name, and answers bad fields with one problem listing each', async () => {
    const minimal = await post({ firstName: 'Lee', lastName: 'Park' })
    expect(minimal.status).toBe(201)
    expect(minimal.body).toMatchObject({ email: null, phone: null, preferredLanguage: null, address: null, roles: [] })

    const bad = await post({
      firstName: ' ',
      email: 'not-an-email',
      phone: '312 555 0100',
      preferredLanguage: 'english!',
      roles: ['PARENT', 'BOSS'],
      address: { country: 'USA' },
      favouriteColour: 'blue',
    })
    expect(bad.status).toBe(400)
    expect(bad.headers.get('content-type')).toMatch(/^application\/problem\+json/)
    expect(bad.body).toMatchObject({ code: 'validation_error', status: 400, instance: '/v1/clients' })
    const fields = bad.body.errors.map((e: { path: string; code: string }) => `${e.path}:${e.code}`).sort()
    expect(fields).toEqual([
      '(body):unrecognized_keys',
      'address.country:invalid_format',
      'email:invalid_format',
      'firstName:too_small',
      'lastName:required',
      'phone:invalid_format',
      'preferredLanguage:invalid_language',
      'roles.1:invalid_value',
    ])
  })

  it('refuses a location of another tenant', async () => {
    const response = await post({ firstName: 'A', lastName: 'B', locationId: newId('location') })
    expect(response.status).toBe(400)
    expect(response.body.errors).toEqual([expect.objectContaining({ path: 'locationId', code: 'not_found' })])
  })
})

describe('GET /v1/clients', () => {
  it('walks every page in each sort and direction without skipping or repeating, and ties break by id', async () => {
    const own = await freshTenant()
    // Several clients share a last name, so the lastName sort must break ties by id to keep its pages stable.
    const lastNames = ['Nguyen', 'Adams', 'Nguyen', 'Brown', 'Zimmer', 'Adams', 'Nguyen']
    const created: Array<{ id: string; lastName: string; createdAt: string }> = []
    for (const [i, lastName] of lastNames.entries()) {
      const response = await post({ firstName: `F${i}`, lastName }, own.token)
      expect(response.status).toBe(201)
      created.push(response.body)
    }
    const byCreated = [...created].sort((a, b) => a.createdAt.localeCompare(b.createdAt) || a.id.localeCompare(b.id))
    const byName = [...created].sort((a, b) => a.lastName.localeCompare(b.lastName) || a.id.localeCompare(b.id))

    const cases: Array<[string, typeof created]> = [
      ['createdAt', byCreated],
      ['-createdAt', [...byCreated].reverse()],
      ['lastName', byName],
      ['-lastName', [...byName].reverse()],
    ]
    for (const [sort, expected] of cases) {
      const { items, pages } = await walkPages<{ id: string }>(
        platform.http,
        own.token,
        `/v1/clients?limit=2&sort=${sort}`
      )
      expect(
        items.map((c) => c.id),
        sort
      ).toEqual(expected.map((c) => c.id))
      expect(pages).toBe(4)
    }
    // The default is newest first.
    const { items } = await walkPages<{ id: string }>(platform.http, own.token, '/v1/clients?limit=3')
    expect(items.map((c) => c.id)).toEqual([...byCreated].reverse().map((c) => c.id))
  })

  it('refuses a cursor presented with another sort, a foreign cursor and a bad limit', async () => {
    const own = await freshTenant()
    for (const name of ['A', 'B', 'C']) await post({ firstName: name, lastName: name }, own.token)
    const first = await platform.http.get('/v1/clients?limit=1&sort=lastName', { token: own.token })
    expect(first.body.nextCursor).toEqual(expect.any(String))
    const other = await platform.http.get(`/v1/clients?limit=1&sort=createdAt&cursor=${first.body.nextCursor}`, {
      token: own.token,
    })
    expect(other.status).toBe(400)
    expect(other.body.errors).toEqual([expect.objectContaining({ path: 'cursor', code: 'invalid_cursor' })])
    const foreign = await platform.http.get('/v1/clients?cursor=garbage', { token: own.token })
    expect(foreign.status).toBe(400)
    expect(foreign.body.errors[0]).toMatchObject({ path: 'cursor', code: 'invalid_cursor' })
    const tooMany = await platform.http.get('/v1/clients?limit=101', { token: own.token })
    expect(tooMany.status).toBe(400)
    expect(tooMany.body.errors[0].path).toBe('limit')
    const badSort = await platform.http.get('/v1/clients?sort=email', { token: own.token })
    expect(badSort.status).toBe(400)
    expect(badSort.body.errors[0].path).toBe('sort')
  })

  it('filters by location, email, name, role, linked child and archived state', async () => {
    const own = await freshTenant()
    // A second location of this tenant, so the filter has something to leave out.
    const secondLocation = newId('location')
    await platform.api.deps.db.location.create({
      data: { id: secondLocation, tenantId: own.tenantId, name: 'North clinic', timeZone: 'America/Chicago' },
    })
    const make = async (body: Record<string, unknown>) => {
      const response = await post({ locationId: own.locationId, ...body }, own.token)
      expect(response.status, JSON.stringify(response.body)).toBe(201)
      return response.body.id as string
    }
    const maria = await make({
      firstName: 'María José',
      lastName: 'García',
      email: 'Maria@Example.org',
      roles: ['PARENT'],
    })
    expect((await platform.http.get(`/v1/clients/${maria}`, { token: own.token })).body.email).toBe('maria@example.org')
    const tom = await make({ firstName: 'Tom', lastName: 'Garcia-Lee', roles: ['PAYER'], locationId: secondLocation })
    const ann = await make({ firstName: 'Ann', lastName: 'Smith', roles: ['GUARDIAN', 'PAYER'] })
    const gone = await make({ firstName: 'Old', lastName: 'Garcia' })
    expect((await remove(gone, own.token)).status).toBe(200)
    const child = await platform.http.post('/v1/children', {
      token: own.token,
      body: {
        firstName: 'Kid',
        lastName: 'Smith',
        dateOfBirth: '2022-05-01',
        locationId: own.locationId,
        clients: [{ clientId: ann, relationship: 'LEGAL_GUARDIAN' }],
      },
    })
    expect(child.status).toBe(201)

    const ids = async (query: string) => {
      const { items } = await walkPages<{ id: string }>(platform.http, own.token, `/v1/clients?sort=createdAt&${query}`)
      return items.map((c) => c.id)
    }
    expect(await ids('')).toEqual([maria, tom, ann])
    expect(await ids(`locationId=${secondLocation}`)).toEqual([tom])
    expect(await ids('email=maria%40example.ORG')).toEqual([maria])
    expect(await ids('q=garc')).toEqual([maria, tom])
    expect(await ids('q=GARCIA%20tom')).toEqual([tom])
    expect(await ids('role=PAYER')).toEqual([tom, ann])
    expect(await ids(`childId=${child.body.id}`)).toEqual([ann])
    expect(await ids('archived=true')).toEqual([gone])
    expect(await ids('archived=false&q=garcia')).toEqual([tom])
    const badRole = await platform.http.get('/v1/clients?role=BOSS', { token: own.token })
    expect(badRole.status).toBe(400)
    expect(badRole.body.errors[0]).toMatchObject({ path: 'role' })
    const badFlag = await platform.http.get('/v1/clients?archived=yes', { token: own.token })
    expect(badFlag.status).toBe(400)
  })
})

describe('PATCH /v1/clients/{id}', () => {
  it('applies a JSON merge patch: members replace, null removes, address merges, roles are replaced whole', async () => {
    const created = await post({
      firstName: 'Ines',
      lastName: 'Moreau',
      email: 'ines@example.org',
      phone: '+33612345678',
      address: { line1: '1 rue de la Paix', city: 'Paris', country: 'FR' },
      roles: ['PARENT', 'PAYER'],
    })
    const id = created.body.id
    const response = await patch(id, {
      lastName: 'Moreau-Blanc',
      phone: null,
      address: { line1: '2 rue Neuve', city: null, postalCode: '75002' },
      roles: ['GUARDIAN'],
    })
    expect(response.status).toBe(200)
    expect(response.body).toMatchObject({
      firstName: 'Ines',
      lastName: 'Moreau-Blanc',
      email: 'ines@example.org',
      phone: null,
      address: { line1: '2 rue Neuve', postalCode: '75002', country: 'FR' },
      roles: ['GUARDIAN'],
    })
    expect(response.body.address).not.toHaveProperty('city')
    expect(response.body.updatedAt > created.body.updatedAt).toBe(true)
    expect((await platform.http.get(`/v1/clients/${id}`, { token })).body).toEqual(response.body)

    // An empty patch changes nothing; removing the whole address leaves null; plain application/json works too.
    const same = await patch(id, {}, token, 'application/json')
    expect(same.status).toBe(200)
    expect(same.body).toMatchObject({ lastName: 'Moreau-Blanc', roles: ['GUARDIAN'] })
    expect((await patch(id, { address: null, roles: null })).body).toMatchObject({ address: null, roles: [] })
  })

  it('refuses to remove a required field or set a bad value, and leaves the client unchanged', async () => {
    const created = await post({ firstName: 'Kai', lastName: 'Lund', email: 'kai@example.org' })
    const response = await patch(created.body.id, { firstName: null, email: 'nope', unknownField: 1 })
    expect(response.status).toBe(400)
    expect(response.body.code).toBe('validation_error')
    const paths = response.body.errors.map((e: { path: string }) => e.path).sort()
    expect(paths).toEqual(['(body)', 'email', 'firstName'])
    expect((await platform.http.get(`/v1/clients/${created.body.id}`, { token })).body).toEqual(created.body)

    const wrongType = await patch(created.body.id, { firstName: 'Kai' }, token, 'text/plain')
    expect(wrongType.status).toBe(415)
    expect(wrongType.body.code).toBe('unsupported_media_type')
  })
})

describe('concurrent changes', () => {
  it('applies concurrent patches of one client one after the other, losing none of their members', async () => {
    const created = await post({ firstName: 'Concurrent', lastName: 'Client' })
    const members = {
      line1: '1 Main St',
      line2: 'Apt 2',
      city: 'Chicago',
      region: 'IL',
      postalCode: '60601',
      country: 'US',
    }
    const responses = await Promise.all(
      Object.entries(members).map(([key, value]) => patch(created.body.id, { address: { [key]: value } }))
    )
    expect(responses.map((r) => r.status)).toEqual([200, 200, 200, 200, 200, 200])
    expect((await platform.http.get(`/v1/clients/${created.body.id}`, { token })).body.address).toEqual(members)
  })
})

describe('DELETE /v1/clients/{id}', () => {
  it('archives: the client stays readable with archivedAt, leaves the default list, and a repeat changes nothing', async () => {
    const own = await freshTenant()
    const created = await post({ firstName: 'Ada', lastName: 'Byrne' }, own.token)
    const archived = await remove(created.body.id, own.token)
    expect(archived.status).toBe(200)
    expect(archived.body.archivedAt).toMatch(/Z$/)
    expect(archived.body).toMatchObject({ id: created.body.id, firstName: 'Ada' })
    expect((await platform.http.get(`/v1/clients/${created.body.id}`, { token: own.token })).body.archivedAt).toBe(
      archived.body.archivedAt
    )
    expect((await platform.http.get('/v1/clients', { token: own.token })).body.data).toEqual([])
    expect((await platform.http.get('/v1/clients?archived=true', { token: own.token })).body.data).toEqual([
      archived.body,
    ])
    const again = await remove(created.body.id, own.token)
    expect(again.status).toBe(200)
    expect(again.body).toEqual(archived.body)
    expect(await platform.api.deps.db.client.count({ where: { id: created.body.id } })).toBe(1)
  })
})

describe('tenant isolation', () => {
  it("answers 404 for another tenant's client on get, patch and delete, and never lists it", async () => {
    const name = `Secret-${tag()}`
    const mine = await post({ firstName: 'Hidden', lastName: name })
    const id = mine.body.id
    for (const response of [
      await platform.http.get(`/v1/clients/${id}`, { token: otherToken }),
      await patch(id, { lastName: 'Changed' }, otherToken),
      await remove(id, otherToken),
    ]) {
      expect(response.status).toBe(404)
      expect(response.body.code).toBe('not_found')
      expect(JSON.stringify(response.body)).not.toContain(name)
    }
    const listed = await platform.http.get(`/v1/clients?q=${name}`, { token: otherToken })
    expect(listed.body.data).toEqual([])
    const read = await platform.http.get(`/v1/clients/${id}`, { token })
    expect(read.body).toMatchObject({ lastName: name, archivedAt: null })
  })

  it('needs the clients scope to write and clients.read to read', async () => {
    const readOnly = await freshTenant(['clients.read'])
    expect((await post({ firstName: 'A', lastName: 'B' }, readOnly.token)).status).toBe(403)
    expect((await platform.http.get('/v1/clients', { token: readOnly.token })).status).toBe(200)
    const noScope = await freshTenant(['children'])
    const refused = await platform.http.get('/v1/clients', { token: noScope.token })
    expect(refused.status).toBe(403)
    expect(refused.body.code).toBe('insufficient_scope')
  })
})
