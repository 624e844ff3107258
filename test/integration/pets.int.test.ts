/**
 * Pets over HTTP: household pets and therapy animals owned by clients; create, read, lists, merge patch, archiving,
 * owner checks and tenant isolation.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startPlatform, type Platform } from '../support/platform.ts'
import { walkPages } from '../support/walk-pages.ts'
import { newId } from '../../domain/ids.ts'

let platform: Platform

beforeAll(async () => {
  platform = await startPlatform({ withWorker: false })
})

afterAll(async () => {
  // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- unset when beforeAll failed before assigning it
  await platform?.stop()
})

interface Tenant {
  tenantId: string
  token: string
}

async function freshTenant(scopes = ['pets', 'clients']): Promise<Tenant> {
  const client = await platform.newTenant(scopes)
  return { tenantId: client.tenantId, token: await platform.token(client) }
}

async function createOwner(t: Tenant, firstName = 'Amara') {
  const response = await platform.http.post('/v1/clients', { token: t.token, body: { firstName, lastName: 'Okafor' } })
  expect(response.status).toBe(201)
  return response.body.id as string
}
const createPet = (t: Tenant, body: Record<string, unknown>) => platform.http.post('/v1/pets', { token: t.token, body })
const patchPet = (t: Tenant, id: string, body: unknown) =>
  platform.http.request('PATCH', `/v1/pets/${id}`, { token: t.token, body })
const archivePet = (t: Tenant, id: string) => platform.http.request('DELETE', `/v1/pets/${id}`, { token: t.token })
const errorCodes = (body: { errors?: Array<{ path: string; code: string }> }) =>
  (body.errors ?? []).map((e) => `${e.path}:${e.code}`).sort()

describe('POST /v1/pets', () => {
  it('records a therapy animal with its certification and reads it back', async () => {
    const t = await freshTenant()
    const owner = await createOwner(t)
    const response = await createPet(t, {
      ownerClientId: owner,
      name: 'Biscuit',
      species: 'DOG',
      breed: 'Golden retriever',
      temperament: 'Calm with children; startles at loud noises',
      notes: 'Sibling allergic to dog hair: sessions in the garden',
      therapyAnimal: true,
      certification: { registry: 'Pet Partners', number: 'PP-12345', expiresOn: '2027-05-31' },
    })
    expect(response.status).toBe(201)
    expect(response.body).toEqual({
      id: expect.stringMatching(/^pet_/),
      ownerClientId: owner,
      name: 'Biscuit',
      species: 'DOG',
      breed: 'Golden retriever',
      temperament: 'Calm with children; startles at loud noises',
      notes: 'Sibling allergic to dog hair: sessions in the garden',
      therapyAnimal: true,
      certification: { registry: 'Pet Partners', number: 'PP-12345', expiresOn: '2027-05-31' },
      archivedAt: null,
      createdAt: expect.stringMatching(/Z$/),
      updatedAt: expect.stringMatching(/Z$/),
    })
    expect(response.headers.get('location')).toBe(`/v1/pets/${response.body.id}`)
    expect((await platform.http.get(`/v1/pets/${response.body.id}`, { token: t.token })).body).toEqual(response.body)

    const household = await createPet(t, { ownerClientId: owner, name: 'Mittens', species: 'CAT' })
    expect(household.body).toMatchObject({ therapyAnimal: false, certification: null, breed: null, notes: null })
  })

  it('refuses an unknown, foreign or archived owner, a certification without therapy work, and bad fields', async () => {
    const t = await freshTenant()
    const other = await freshTenant()
    const foreign = await createOwner(other)
    const archived = await createOwner(t, 'Gone')
    await platform.http.request('DELETE', `/v1/clients/${archived}`, { token: t.token })
    for (const [ownerClientId, code] of [
      [newId('client'), 'not_found'],
      [foreign, 'not_found'],
      [archived, 'archived'],
    ]) {
      const response = await createPet(t, { ownerClientId, name: 'Rex', species: 'DOG' })
      expect(response.status).toBe(400)
      expect(errorCodes(response.body)).toEqual([`ownerClientId:${code}`])
    }
    const owner = await createOwner(t)
    const certified = await createPet(t, {
      ownerClientId: owner,
      name: 'Rex',
      species: 'DOG',
      certification: { registry: 'Pet Partners' },
    })
    expect(errorCodes(certified.body)).toEqual(['certification:requires_therapy_animal'])
    const bad = await createPet(t, {
      ownerClientId: owner,
      name: '',
      species: 'DRAGON',
      certification: { number: '1' },
      therapyAnimal: 'yes',
    })
    expect(errorCodes(bad.body)).toEqual([
      'certification.registry:required',
      'name:too_small',
      'species:invalid_value',
      'therapyAnimal:invalid_type',
    ])
    expect(await platform.api.deps.db.pet.count({ where: { tenantId: t.tenantId } })).toBe(0)
  })
})

describe('PATCH /v1/pets/{id}', () => {
  it('merges: certification member by member, null removes, and the outcome must still hold together', async () => {
    const t = await freshTenant()
    const owner = await createOwner(t)
    const newOwner = await createOwner(t, 'Chidi')
    const created = await createPet(t, {
      ownerClientId: owner,
      name: 'Biscuit',
      species: 'DOG',
      breed: 'Golden retriever',
      therapyAnimal: true,
      certification: { registry: 'Pet Partners', number: 'PP-1' },
    })
    const id = created.body.id
    const patched = await patchPet(t, id, {
      breed: null,
      certification: { number: null, expiresOn: '2027-01-31' },
      ownerClientId: newOwner,
    })
    expect(patched.status).toBe(200)
    expect(patched.body).toMatchObject({
      ownerClientId: newOwner,
      breed: null,
      therapyAnimal: true,
      certification: { registry: 'Pet Partners', expiresOn: '2027-01-31' },
    })
    expect(patched.body.certification).not.toHaveProperty('number')

    // Retiring from therapy work means removing the certification in the same patch.
    const retire = await patchPet(t, id, { therapyAnimal: false })
    expect(errorCodes(retire.body)).toEqual(['certification:requires_therapy_animal'])
    const retired = await patchPet(t, id, { therapyAnimal: false, certification: null })
    expect(retired.status).toBe(200)
    expect(retired.body).toMatchObject({ therapyAnimal: false, certification: null })
    expect(errorCodes((await patchPet(t, id, { name: null })).body)).toEqual(['name:invalid_type'])
    expect(errorCodes((await patchPet(t, id, { ownerClientId: newId('client') })).body)).toEqual([
      'ownerClientId:not_found',
    ])
    expect((await platform.http.get(`/v1/pets/${id}`, { token: t.token })).body).toEqual(retired.body)
  })
})

describe('GET /v1/pets', () => {
  it('walks every page in each sort and filters by owner, species, therapy work and archived state', async () => {
    const t = await freshTenant()
    const amara = await createOwner(t)
    const chidi = await createOwner(t, 'Chidi')
    const made: Array<{ id: string; name: string; createdAt: string }> = []
    for (const [name, species, ownerClientId, therapyAnimal] of [
      ['Rex', 'DOG', amara, true],
      ['Mittens', 'CAT', amara, false],
      ['Rex', 'DOG', chidi, false],
      ['Apollo', 'HORSE', chidi, true],
      ['Bun', 'RABBIT', amara, false],
    ] as const) {
      const response = await createPet(t, { name, species, ownerClientId, therapyAnimal })
      expect(response.status).toBe(201)
      made.push(response.body)
    }
    const by = (key: 'name' | 'createdAt') =>
      [...made].sort((a, b) => a[key].localeCompare(b[key]) || a.id.localeCompare(b.id)).map((p) => p.id)
    for (const [sort, expected] of [
      ['name', by('name')],
      ['-name', by('name').reverse()],
      ['createdAt', by('createdAt')],
      ['-createdAt', by('createdAt').reverse()],
    ] as const) {
      const { items } = await walkPages<{ id: string }>(platform.http, t.token, `/v1/pets?limit=2&sort=${sort}`)
      expect(
        items.map((p) => p.id),
        sort
      ).toEqual(expected)
    }
    const ids = async (query: string) =>
      (await walkPages<{ id: string }>(platform.http, t.token, `/v1/pets?sort=createdAt&${query}`)).items.map(
        (p) => p.id
      )
    const [rex, mittens, rex2, apollo, bun] = made.map((p) => p.id)
    expect(await ids(`ownerClientId=${chidi}`)).toEqual([rex2, apollo])
    expect(await ids('species=DOG')).toEqual([rex, rex2])
    expect(await ids('therapyAnimal=true')).toEqual([rex, apollo])
    expect(await ids('therapyAnimal=false&ownerClientId=' + amara)).toEqual([mittens, bun])
    await archivePet(t, bun!)
    expect(await ids('archived=true')).toEqual([bun])
    expect(await ids('')).toEqual([rex, mittens, rex2, apollo])
    const first = await platform.http.get('/v1/pets?limit=1&sort=name', { token: t.token })
    const mixed = await platform.http.get(`/v1/pets?sort=-name&cursor=${first.body.nextCursor}`, { token: t.token })
    expect(mixed.status).toBe(400)
    expect(errorCodes(mixed.body)).toEqual(['cursor:invalid_cursor'])
  })
})

describe('DELETE /v1/pets/{id} and tenant isolation', () => {
  it('archives: readable with archivedAt, repeatable', async () => {
    const t = await freshTenant()
    const created = await createPet(t, { ownerClientId: await createOwner(t), name: 'Rex', species: 'DOG' })
    const archived = await archivePet(t, created.body.id)
    expect(archived.status).toBe(200)
    expect(archived.body).toMatchObject({ id: created.body.id, name: 'Rex', archivedAt: expect.stringMatching(/Z$/) })
    expect((await archivePet(t, created.body.id)).body).toEqual(archived.body)
    expect((await platform.http.get(`/v1/pets/${created.body.id}`, { token: t.token })).body).toEqual(archived.body)
  })

  it("answers 404 for another tenant's pet on get, patch and delete, and never lists it", async () => {
    const t = await freshTenant()
    const other = await freshTenant()
    const created = await createPet(t, { ownerClientId: await createOwner(t), name: 'Hidden-Rex', species: 'DOG' })
    for (const response of [
      await platform.http.get(`/v1/pets/${created.body.id}`, { token: other.token }),
      await patchPet(other, created.body.id, { name: 'Stolen' }),
      await archivePet(other, created.body.id),
    ]) {
      expect(response.status).toBe(404)
      expect(response.body.code).toBe('not_found')
      expect(JSON.stringify(response.body)).not.toContain('Hidden')
    }
    expect((await platform.http.get('/v1/pets', { token: other.token })).body.data).toEqual([])
    expect((await platform.http.get(`/v1/pets/${created.body.id}`, { token: t.token })).body).toEqual(created.body)
  })

  it('needs the pets scope to write and pets.read to read', async () => {
    const readOnly = await freshTenant(['pets.read'])
    expect((await createPet(readOnly, { ownerClientId: 'cln_x', name: 'Rex', species: 'DOG' })).status).toBe(403)
    expect((await platform.http.get('/v1/pets', { token: readOnly.token })).status).toBe(200)
  })
})
