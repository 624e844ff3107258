/**
 * Children over HTTP: the original create contract, links to clients, languages, diagnoses, goals and
 * early-intervention enrolment, lists, merge patch, archiving, the `child.registered` event and tenant isolation.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createChild as createChildRecord } from '../../domain/children/child-service.ts'
import { newId } from '../../domain/ids.ts'
import { runInUnitOfWork } from '../../infra/unit-of-work.ts'
import { startPlatform, type Platform } from '../support/platform.ts'
import { walkPages } from '../support/walk-pages.ts'

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
  locationId: string
  token: string
}

async function freshTenant(scopes = ['children', 'clients']): Promise<Tenant> {
  const client = await platform.newTenant(scopes)
  return { tenantId: client.tenantId, locationId: client.locationId, token: await platform.token(client) }
}

const maya = { firstName: 'Maya', lastName: 'Okafor', dateOfBirth: '2023-04-18' }
const createChild = (t: Tenant, body: Record<string, unknown>) =>
  platform.http.post('/v1/children', { token: t.token, body })
const patchChild = (t: Tenant, id: string, body: unknown) =>
  platform.http.request('PATCH', `/v1/children/${id}`, { token: t.token, body })
const archiveChild = (t: Tenant, id: string) =>
  platform.http.request('DELETE', `/v1/children/${id}`, { token: t.token })
async function createClient(t: Tenant, firstName: string) {
  const response = await platform.http.post('/v1/clients', { token: t.token, body: { firstName, lastName: 'Okafor' } })
  expect(response.status).toBe(201)
  return response.body.id as string
}
const errorCodes = (body: { errors?: Array<{ path: string; code: string }> }) =>
  (body.errors ?? []).map((e) => `${e.path}:${e.code}`).sort()

const eventsOf = (t: Tenant) =>
  runInUnitOfWork(platform.api.deps.db, t.tenantId, (uow) =>
    uow.tx.event.findMany({ where: { type: 'child.registered' }, orderBy: { createdAt: 'asc' } })
  )

describe('POST /v1/children', () => {
  it('keeps the original contract: names and date of birth make a child, and the new fields start empty', async () => {
    const t = await freshTenant()
    const response = await createChild(t, maya)
    expect(response.status).toBe(201)
    expect(response.body).toEqual({
      id: expect.stringMatching(/^chd_/),
      ...maya,
      locationId: t.locationId,
      languages: [],
      clients: [],
      diagnoses: [],
      goals: [],
      earlyIntervention: null,
      archivedAt: null,
      createdAt: expect.stringMatching(/Z$/),
      updatedAt: expect.stringMatching(/Z$/),
    })
    expect(response.headers.get('location')).toBe(`/v1/children/${response.body.id}`)
    expect((await platform.http.get(`/v1/children/${response.body.id}`, { token: t.token })).body).toEqual(
      response.body
    )
  })

  it('records child.registered with the child, in the tenant, exactly once, and nothing for a refused create', async () => {
    const t = await freshTenant()
    const refused = await createChild(t, { ...maya, dateOfBirth: '2999-01-01' })
    expect(refused.status).toBe(400)
    expect(errorCodes(refused.body)).toEqual(['dateOfBirth:in_future'])
    expect(await eventsOf(t)).toEqual([])

    const created = await createChild(t, maya)
    const events = await eventsOf(t)
    expect(events).toHaveLength(1)
    expect(events[0]).toMatchObject({
      tenantId: t.tenantId,
      type: 'child.registered',
      data: { childId: created.body.id, locationId: t.locationId },
    })
    expect(events[0]!.id).toMatch(/^evt_/)
    // Minimum necessary: ids only, no names or dates of birth in the payload.
    expect(JSON.stringify(events[0]!.data)).not.toMatch(/Maya|Okafor|2023-04-18/)
    // Another tenant's unit of work does not see it (row-level security).
    expect(await eventsOf(await freshTenant())).toEqual([])
  })

  it('commits the event with the child or not at all: a unit of work that fails after the create leaves neither', async () => {
    const t = await freshTenant()
    await expect(
      runInUnitOfWork(platform.api.deps.db, t.tenantId, async (uow) => {
        const child = await createChildRecord(uow, maya, new Date())
        expect((await uow.tx.event.findMany({ where: { type: 'child.registered' } })).map((e) => e.data)).toEqual([
          { childId: child.id, locationId: t.locationId },
        ])
        throw new Error('fails after writing')
      })
    ).rejects.toThrow('fails after writing')
    expect(await eventsOf(t)).toEqual([])
    expect(await platform.api.deps.db.child.count({ where: { tenantId: t.tenantId } })).toBe(0)

    // An idempotent replay creates no second child and no second event.
    const key = `child-${t.tenantId}`
    const first = await platform.http.post('/v1/children', {
      token: t.token,
      body: maya,
      headers: { 'Idempotency-Key': key },
    })
    const replay = await platform.http.post('/v1/children', {
      token: t.token,
      body: maya,
      headers: { 'Idempotency-Key': key },
    })
    expect(replay.headers.get('idempotent-replayed')).toBe('true')
    expect(replay.body.id).toBe(first.body.id)
    expect((await eventsOf(t)).map((e) => (e.data as { childId: string }).childId)).toEqual([first.body.id])
    expect(await platform.api.deps.db.child.count({ where: { tenantId: t.tenantId } })).toBe(1)
  })

  it('records languages, diagnoses, goals, early intervention and client links', async () => {
    const t = await freshTenant()
    const mother = await createClient(t, 'Amara')
    const father = await createClient(t, 'Chidi')
    const response = await createChild(t, {
      ...maya,
      languages: ['EN', 'ig'],
      clients: [
        { clientId: father, relationship: 'FATHER', financiallyResponsible: true },
        { clientId: mother, relationship: 'MOTHER', primaryContact: true, legalGuardian: true },
      ],
      diagnoses: [{ code: 'F80.1', description: 'Expressive language disorder', diagnosedOn: '2025-06-02' }],
      goals: [
        {
          description: 'Produces /s/ in initial position with 80% accuracy',
          discipline: 'SPEECH_THERAPY',
          targetDate: '2026-06-01',
        },
      ],
      earlyIntervention: {
        referralDate: '2024-01-10',
        referralSource: 'PHYSICIAN',
        consentDate: '2024-01-20',
        initialIfspDate: '2024-02-20',
        lastIfspReviewDate: '2024-08-20',
        serviceCoordinator: { name: 'Rosa Diaz', organization: 'County Part C', phone: '+13125550123' },
      },
    })
    expect(response.status, JSON.stringify(response.body)).toBe(201)
    const child = response.body
    expect(child.languages).toEqual(['en', 'ig'])
    // Primary contact first, then by client id.
    expect(child.clients).toEqual([
      {
        clientId: mother,
        relationship: 'MOTHER',
        primaryContact: true,
        legalGuardian: true,
        financiallyResponsible: false,
      },
      {
        clientId: father,
        relationship: 'FATHER',
        primaryContact: false,
        legalGuardian: false,
        financiallyResponsible: true,
      },
    ])
    expect(child.diagnoses).toEqual([
      { code: 'F80.1', system: 'ICD_10_CM', description: 'Expressive language disorder', diagnosedOn: '2025-06-02' },
    ])
    expect(child.goals).toEqual([
      {
        id: expect.stringMatching(/^gol_/),
        description: 'Produces /s/ in initial position with 80% accuracy',
        discipline: 'SPEECH_THERAPY',
        status: 'ACTIVE',
        targetDate: '2026-06-01',
      },
    ])
    expect(child.earlyIntervention).toEqual({
      referralDate: '2024-01-10',
      referralSource: 'PHYSICIAN',
      consentDate: '2024-01-20',
      initialIfspDate: '2024-02-20',
      lastIfspReviewDate: '2024-08-20',
      serviceCoordinator: { name: 'Rosa Diaz', organization: 'County Part C', phone: '+13125550123' },
    })
    // The early-intervention workflow reads these columns directly.
    const row = await platform.api.deps.db.child.findUniqueOrThrow({ where: { id: child.id } })
    expect(row.eiReferralDate?.toISOString()).toBe('2024-01-10T00:00:00.000Z')
    expect(row.eiLastIfspReviewDate?.toISOString()).toBe('2024-08-20T00:00:00.000Z')
    expect(row.eiExitDate).toBeNull()
  })

  it('refuses unknown, foreign and archived clients, two primary contacts, and bad clinical data', async () => {
    const t = await freshTenant()
    const other = await freshTenant()
    const foreign = await createClient(other, 'Foreign')
    const archived = await createClient(t, 'Gone')
    await platform.http.request('DELETE', `/v1/clients/${archived}`, { token: t.token })
    const ok = await createClient(t, 'Here')
    const links = await createChild(t, {
      ...maya,
      clients: [
        { clientId: newId('client'), relationship: 'MOTHER' },
        { clientId: foreign, relationship: 'FATHER' },
        { clientId: archived, relationship: 'GRANDPARENT' },
        { clientId: ok, relationship: 'LEGAL_GUARDIAN' },
      ],
    })
    expect(links.status).toBe(400)
    expect(errorCodes(links.body)).toEqual([
      'clients.0.clientId:not_found',
      'clients.1.clientId:not_found',
      'clients.2.clientId:archived',
    ])
    // An id of a shape no client id has names nothing either: the schema refuses it, with the same code.
    const malformed = await createChild(t, { ...maya, clients: [{ clientId: 'cln_missing', relationship: 'MOTHER' }] })
    expect(errorCodes(malformed.body)).toEqual(['clients.0.clientId:not_found'])
    const twoPrimaries = await createChild(t, {
      ...maya,
      clients: [
        { clientId: ok, relationship: 'MOTHER', primaryContact: true },
        { clientId: archived, relationship: 'FATHER', primaryContact: true },
      ],
    })
    expect(errorCodes(twoPrimaries.body)).toEqual(['clients:several_primary_contacts'])
    const clinical = await createChild(t, {
      ...maya,
      languages: ['not a language'],
      diagnoses: [{ code: 'speech delay' }],
      goals: [{ id: 'gol_invented', description: 'X' }],
      earlyIntervention: { referralDate: '2024-03-01', initialIfspDate: '2024-02-01' },
    })
    expect(errorCodes(clinical.body)).toEqual([
      'diagnoses.0.code:invalid_code',
      'earlyIntervention.initialIfspDate:before_referral',
      'languages.0:invalid_language',
    ])
    const unknownGoal = await createChild(t, { ...maya, goals: [{ id: 'gol_invented', description: 'X' }] })
    expect(errorCodes(unknownGoal.body)).toEqual(['goals.0.id:unknown_goal'])
    expect(await eventsOf(t)).toEqual([])
  })
})

describe('PATCH /v1/children/{id}', () => {
  it('merges: scalars replace, arrays are replaced whole, goals keep their ids, early intervention merges', async () => {
    const t = await freshTenant()
    const mother = await createClient(t, 'Amara')
    const grandma = await createClient(t, 'Ngozi')
    const created = await createChild(t, {
      ...maya,
      languages: ['en'],
      clients: [{ clientId: mother, relationship: 'MOTHER', primaryContact: true }],
      goals: [{ description: 'Goal one' }, { description: 'Goal two' }],
      earlyIntervention: {
        referralDate: '2024-01-10',
        serviceCoordinator: { name: 'Rosa Diaz', phone: '+13125550123' },
      },
    })
    const [one, two] = created.body.goals
    const patched = await patchChild(t, created.body.id, {
      firstName: 'Maia',
      languages: ['en', 'yo'],
      clients: [
        { clientId: mother, relationship: 'MOTHER' },
        { clientId: grandma, relationship: 'GRANDPARENT', primaryContact: true },
      ],
      goals: [{ ...one, status: 'MET' }, { description: 'Goal three' }],
      earlyIntervention: {
        initialIfspDate: '2024-02-20',
        serviceCoordinator: { phone: null, email: 'rosa@county.example' },
      },
    })
    expect(patched.status, JSON.stringify(patched.body)).toBe(200)
    const child = patched.body
    expect(child).toMatchObject({
      firstName: 'Maia',
      lastName: 'Okafor',
      dateOfBirth: '2023-04-18',
      languages: ['en', 'yo'],
    })
    expect(
      child.clients.map((l: { clientId: string; primaryContact: boolean }) => [l.clientId, l.primaryContact])
    ).toEqual([
      [grandma, true],
      [mother, false],
    ])
    expect(child.goals).toEqual([
      { ...one, status: 'MET' },
      { id: expect.stringMatching(/^gol_/), description: 'Goal three', status: 'ACTIVE' },
    ])
    expect(child.goals[1].id).not.toBe(two.id)
    expect(child.earlyIntervention).toEqual({
      referralDate: '2024-01-10',
      initialIfspDate: '2024-02-20',
      serviceCoordinator: { name: 'Rosa Diaz', email: 'rosa@county.example' },
    })
    expect((await platform.http.get(`/v1/children/${child.id}`, { token: t.token })).body).toEqual(child)

    // A patch without `clients` keeps the links; null removes an optional member; early intervention can end.
    const later = await patchChild(t, child.id, {
      languages: null,
      earlyIntervention: null,
      diagnoses: [{ code: 'F80.2' }],
    })
    expect(later.status).toBe(200)
    expect(later.body).toMatchObject({
      languages: [],
      earlyIntervention: null,
      clients: child.clients,
      goals: child.goals,
    })
    const row = await platform.api.deps.db.child.findUniqueOrThrow({ where: { id: child.id } })
    expect([row.eiReferralDate, row.eiInitialIfspDate, row.eiServiceCoordinator]).toEqual([null, null, null])
  })

  it('validates the patched record like a create and applies nothing of a refused patch', async () => {
    const t = await freshTenant()
    const created = await createChild(t, {
      ...maya,
      earlyIntervention: { referralDate: '2024-01-10', initialIfspDate: '2024-02-20' },
    })
    const id = created.body.id
    // The date of birth is checked against today, and against the enrolment it must precede.
    expect(errorCodes((await patchChild(t, id, { dateOfBirth: '2999-01-01' })).body)).toEqual([
      'earlyIntervention.referralDate:before_birth',
    ])
    const plain = await createChild(t, maya)
    expect(errorCodes((await patchChild(t, plain.body.id, { dateOfBirth: '2999-01-01' })).body)).toEqual([
      'dateOfBirth:in_future',
    ])
    expect(errorCodes((await patchChild(t, id, { earlyIntervention: { referralDate: null } })).body)).toEqual([
      'earlyIntervention.referralDate:required',
    ])
    expect(
      errorCodes((await patchChild(t, id, { earlyIntervention: { initialIfspDate: '2023-12-01' } })).body)
    ).toEqual(['earlyIntervention.initialIfspDate:before_referral'])
    expect(
      errorCodes((await patchChild(t, id, { goals: [{ id: 'gol_other_child', description: 'X' }] })).body)
    ).toEqual(['goals.0.id:unknown_goal'])
    expect(errorCodes((await patchChild(t, id, { firstName: null, nickname: 'M' })).body)).toEqual([
      '(body):unrecognized_keys',
      'firstName:invalid_type',
    ])
    expect((await platform.http.get(`/v1/children/${id}`, { token: t.token })).body).toEqual(created.body)
  })

  it('keeps an existing link to a client archived since, but refuses new links to them', async () => {
    const t = await freshTenant()
    const mother = await createClient(t, 'Amara')
    const other = await createClient(t, 'Other')
    const created = await createChild(t, { ...maya, clients: [{ clientId: mother, relationship: 'MOTHER' }] })
    await platform.http.request('DELETE', `/v1/clients/${mother}`, { token: t.token })
    await platform.http.request('DELETE', `/v1/clients/${other}`, { token: t.token })
    const kept = await patchChild(t, created.body.id, {
      clients: [{ clientId: mother, relationship: 'MOTHER', legalGuardian: true }],
    })
    expect(kept.status).toBe(200)
    expect(kept.body.clients[0]).toMatchObject({ clientId: mother, legalGuardian: true })
    const added = await patchChild(t, created.body.id, {
      clients: [
        { clientId: mother, relationship: 'MOTHER' },
        { clientId: other, relationship: 'OTHER' },
      ],
    })
    expect(errorCodes(added.body)).toEqual(['clients.1.clientId:archived'])
  })
})

describe('concurrent changes', () => {
  it('serialises concurrent patches of one child: no member lost, links replaced whole, one primary contact', async () => {
    const t = await freshTenant()
    const clients: string[] = []
    for (const name of ['A', 'B', 'C', 'D']) clients.push(await createClient(t, name))
    const created = await createChild(t, { ...maya, earlyIntervention: { referralDate: '2024-01-10' } })
    const id = created.body.id
    const linkPatches = clients.map((primary) => ({
      clients: clients.map((clientId) => ({ clientId, relationship: 'OTHER', primaryContact: clientId === primary })),
    }))
    const memberPatches = [
      { earlyIntervention: { consentDate: '2024-01-20' } },
      { earlyIntervention: { initialIfspDate: '2024-02-20' } },
      { earlyIntervention: { referralSource: 'PARENT' } },
      { earlyIntervention: { serviceCoordinator: { name: 'Rosa Diaz' } } },
    ]
    const responses = await Promise.all([...linkPatches, ...memberPatches].map((body) => patchChild(t, id, body)))
    expect(responses.map((r) => r.status)).toEqual(responses.map(() => 200))
    const child = (await platform.http.get(`/v1/children/${id}`, { token: t.token })).body
    expect(child.clients.map((l: { clientId: string }) => l.clientId).sort()).toEqual([...clients].sort())
    expect(child.clients.filter((l: { primaryContact: boolean }) => l.primaryContact)).toHaveLength(1)
    expect(child.earlyIntervention).toEqual({
      referralDate: '2024-01-10',
      referralSource: 'PARENT',
      consentDate: '2024-01-20',
      initialIfspDate: '2024-02-20',
      serviceCoordinator: { name: 'Rosa Diaz' },
    })
  })
})

describe('GET /v1/children', () => {
  it('walks every page in each sort and direction without skipping or repeating', async () => {
    const t = await freshTenant()
    const specs = [
      ['Zoe', '2021-03-01'],
      ['Adams', '2022-07-15'],
      ['Moss', '2021-03-01'],
      ['Adams', '2020-01-31'],
      ['Lee', '2023-11-02'],
    ] as const
    const created: Array<{ id: string; lastName: string; dateOfBirth: string; createdAt: string }> = []
    for (const [lastName, dateOfBirth] of specs)
      created.push((await createChild(t, { firstName: 'K', lastName, dateOfBirth })).body)
    const by = (key: 'lastName' | 'dateOfBirth' | 'createdAt') =>
      [...created].sort((a, b) => a[key].localeCompare(b[key]) || a.id.localeCompare(b.id)).map((c) => c.id)
    for (const field of ['createdAt', 'lastName', 'dateOfBirth'] as const) {
      for (const [sort, expected] of [
        [field, by(field)],
        [`-${field}`, by(field).reverse()],
      ] as const) {
        const { items } = await walkPages<{ id: string }>(platform.http, t.token, `/v1/children?limit=2&sort=${sort}`)
        expect(
          items.map((c) => c.id),
          sort
        ).toEqual(expected)
      }
    }
    const first = await platform.http.get('/v1/children?limit=2&sort=dateOfBirth', { token: t.token })
    const mixed = await platform.http.get(`/v1/children?limit=2&sort=lastName&cursor=${first.body.nextCursor}`, {
      token: t.token,
    })
    expect(mixed.status).toBe(400)
    expect(errorCodes(mixed.body)).toEqual(['cursor:invalid_cursor'])
  })

  it('filters by client, location, enrolment and archived state', async () => {
    const t = await freshTenant()
    const mother = await createClient(t, 'Amara')
    const linked = (await createChild(t, { ...maya, clients: [{ clientId: mother, relationship: 'MOTHER' }] })).body.id
    const enrolled = (await createChild(t, { ...maya, earlyIntervention: { referralDate: '2024-01-10' } })).body.id
    const plain = (await createChild(t, maya)).body.id
    const archived = (await createChild(t, maya)).body.id
    expect((await archiveChild(t, archived)).status).toBe(200)
    const ids = async (query: string) =>
      (await walkPages<{ id: string }>(platform.http, t.token, `/v1/children?sort=createdAt&${query}`)).items.map(
        (c) => c.id
      )
    expect(await ids('')).toEqual([linked, enrolled, plain])
    expect(await ids(`clientId=${mother}`)).toEqual([linked])
    expect(await ids(`locationId=${t.locationId}`)).toEqual([linked, enrolled, plain])
    expect(await ids('locationId=loc_elsewhere')).toEqual([])
    expect(await ids('earlyIntervention=true')).toEqual([enrolled])
    expect(await ids('earlyIntervention=false')).toEqual([linked, plain])
    expect(await ids('archived=true')).toEqual([archived])
  })
})

describe('DELETE /v1/children/{id} and tenant isolation', () => {
  it('archives: readable with archivedAt, repeatable, the record and its links kept', async () => {
    const t = await freshTenant()
    const mother = await createClient(t, 'Amara')
    const created = await createChild(t, { ...maya, clients: [{ clientId: mother, relationship: 'MOTHER' }] })
    const archived = await archiveChild(t, created.body.id)
    expect(archived.status).toBe(200)
    expect(archived.body).toMatchObject({
      id: created.body.id,
      archivedAt: expect.stringMatching(/Z$/),
      clients: created.body.clients,
    })
    expect((await archiveChild(t, created.body.id)).body).toEqual(archived.body)
    expect((await platform.http.get(`/v1/children/${created.body.id}`, { token: t.token })).body).toEqual(archived.body)
  })

  it("answers 404 for another tenant's child on get, patch and delete, and never lists it", async () => {
    const t = await freshTenant()
    const other = await freshTenant()
    const created = await createChild(t, { ...maya, lastName: 'Hidden-Okafor' })
    for (const response of [
      await platform.http.get(`/v1/children/${created.body.id}`, { token: other.token }),
      await patchChild(other, created.body.id, { firstName: 'Stolen' }),
      await archiveChild(other, created.body.id),
    ]) {
      expect(response.status).toBe(404)
      expect(response.body.code).toBe('not_found')
      expect(JSON.stringify(response.body)).not.toContain('Hidden')
    }
    expect((await platform.http.get('/v1/children', { token: other.token })).body.data).toEqual([])
    expect((await platform.http.get(`/v1/children/${created.body.id}`, { token: t.token })).body).toEqual(created.body)
  })
})
