/**
 * SOAP notes over HTTP against the real API and database: draft → edit → sign (by a credential linked to the
 * session's provider, or an administrator on the record) → locked (edits refused by the API and by the database), a
 * content hash a client can recompute, addenda chained to it, `session.note_added` rows for signing and addenda (none
 * for drafts), scopes and tenant isolation.
 */
import { createHash } from 'node:crypto'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { futureSlot } from '../support/fixtures.ts'
import { startTestIssuer, type TestIssuer } from '../support/oidc-issuer.ts'
import { startPlatform, type Platform } from '../support/platform.ts'
import { providerKey } from '../support/provider-key.ts'
import { newId } from '../../domain/ids.ts'

let platform: Platform
let token: string
let tenantId: string
let mainClient: Awaited<ReturnType<Platform['newTenant']>>

const SCOPES = ['children', 'providers', 'bookings', 'sessions']

beforeAll(async () => {
  platform = await startPlatform({
    withWorker: false,
    // The SSO test issuer is on loopback and plain HTTP, which only development allows by default.
    overrides: { SSO_REQUIRE_HTTPS: 'false', SSO_ALLOW_PRIVATE_NETWORKS: 'true' },
  })
  mainClient = await platform.newTenant(SCOPES)
  tenantId = mainClient.tenantId
  token = await platform.token(mainClient)
})

afterAll(async () => {
  // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- unset when beforeAll failed before assigning it
  await platform?.stop()
})

/** A child with one goal, a provider, an appointment and its session. */
async function sessionWithGoal(as = token) {
  const child = await platform.http.post('/v1/children', {
    token: as,
    body: {
      firstName: 'Maya',
      lastName: 'Okafor',
      dateOfBirth: '2022-04-18',
      goals: [{ description: 'Produces /s/ in initial position with 80% accuracy', discipline: 'SPEECH_THERAPY' }],
    },
  })
  expect(child.status).toBe(201)
  const provider = await platform.http.post('/v1/providers', {
    token: as,
    body: { name: 'Dana Whitfield', timeZone: 'America/Chicago' },
  })
  const appointment = await platform.http.post('/v1/appointments', {
    token: as,
    body: { childId: child.body.id, providerId: provider.body.id, startsAt: futureSlot(3).toISOString() },
  })
  expect(appointment.status).toBe(201)
  const session = await platform.http.post('/v1/sessions', { token: as, body: { appointmentId: appointment.body.id } })
  expect(session.status).toBe(201)
  return { session: session.body, goalId: child.body.goals[0].id as string, providerId: provider.body.id as string }
}

const notesOf = (sessionId: string) => `/v1/sessions/${sessionId}/notes`
const patchNote = (sessionId: string, noteId: string, body: unknown, as = token) =>
  platform.http.request('PATCH', `${notesOf(sessionId)}/${noteId}`, {
    token: as,
    body,
    headers: { 'Content-Type': 'application/merge-patch+json' },
  })

const fullNote = (goalId: string) => ({
  subjective: 'Mother reports practising the home program 4 of 7 days.',
  objective: {
    goals: [
      {
        goalId,
        description: '/s/ initial, word level',
        trials: 20,
        correct: 17,
        cueingLevel: 'MINIMAL',
        cueTypes: ['VERBAL', 'VISUAL'],
      },
      {
        description: 'Turn-taking in play',
        accuracyPercent: 60,
        cueingLevel: 'MODERATE',
        measures: [{ name: 'turns', value: 6 }],
      },
    ],
    observations: 'Engaged for 40 minutes; one break.',
  },
  assessment: 'Progressing toward the /s/ goal; needs fewer visual cues.',
  plan: 'Continue twice weekly; fade visual cues.',
})

/** An independent canonical JSON (sorted members, no whitespace): enough for the ASCII keys of a note. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`
  if (value && typeof value === 'object') {
    const entries = Object.entries(value).sort(([a], [b]) => (a < b ? -1 : 1))
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonical(v)}`).join(',')}}`
  }
  return JSON.stringify(value)
}
const sha256 = (text: string) => createHash('sha256').update(text).digest('hex')

async function noteEvents(sessionId: string) {
  const rows = await platform.api.deps.db.event.findMany({
    where: { tenantId, type: 'session.note_added' },
    orderBy: { createdAt: 'asc' },
  })
  return rows.filter((r) => (r.data as { sessionId: string }).sessionId === sessionId).map((r) => r.data)
}

describe('a note from draft to signed', () => {
  it('drafts, edits, signs as the provider, locks, and records a verifiable hash and one event', async () => {
    const { session, goalId, providerId } = await sessionWithGoal()
    const draft = await platform.http.post(notesOf(session.id), {
      token,
      body: { subjective: 'Mother reports good week.' },
    })
    expect(draft.status).toBe(201)
    expect(draft.body).toMatchObject({
      status: 'DRAFT',
      sessionId: session.id,
      signature: null,
      addenda: [],
      objective: { goals: [] },
    })
    expect(draft.body.createdBy.type).toBe('client')
    const noteId = draft.body.id

    const edited = await patchNote(session.id, noteId, fullNote(goalId))
    expect(edited.status).toBe(200)
    // Accuracy computed from the counts; an observed accuracy kept.
    expect(edited.body.objective.goals[0]).toMatchObject({
      goalId,
      trials: 20,
      correct: 17,
      accuracyPercent: 85,
      cueingLevel: 'MINIMAL',
    })
    expect(edited.body.objective.goals[1].accuracyPercent).toBe(60)
    // A merge patch of objective keeps its other members.
    const merged = await patchNote(session.id, noteId, { objective: { observations: 'Engaged for 45 minutes.' } })
    expect(merged.body.objective.goals).toHaveLength(2)
    expect(merged.body.objective.observations).toBe('Engaged for 45 minutes.')
    expect(await noteEvents(session.id)).toEqual([])

    const signer = await providerKey(platform, tenantId, providerId)
    const notMine = await platform.http.post(`${notesOf(session.id)}/${noteId}/sign`, {
      token: signer,
      body: { providerId: 'prv_someone_else' },
    })
    expect(notMine.status).toBe(403)
    expect(notMine.body.code).toBe('not_session_provider')

    const signed = await platform.http.post(`${notesOf(session.id)}/${noteId}/sign`, {
      token: signer,
      body: { providerId },
    })
    expect(signed.status).toBe(200)
    expect(signed.body.status).toBe('SIGNED')
    expect(signed.body.signature).toMatchObject({
      providerId,
      signedBy: { type: 'api_key' },
      signedAs: 'PROVIDER',
      algorithm: 'sha256-rfc8785-v1',
    })
    expect(signed.body.signature.contentHash).toMatch(/^[0-9a-f]{64}$/)

    // Anyone can recompute the hash from the note as the API returns it.
    const read = await platform.http.get(`${notesOf(session.id)}/${noteId}`, { token })
    const n = read.body
    const recomputed = sha256(
      canonical({
        noteId: n.id,
        sessionId: n.sessionId,
        subjective: n.subjective,
        objective: n.objective,
        assessment: n.assessment,
        plan: n.plan,
        signedByProviderId: n.signature.providerId,
        signedAt: n.signature.signedAt,
      })
    )
    expect(recomputed).toBe(n.signature.contentHash)
    // ...and a tampered copy does not match.
    expect(sha256(canonical({ ...n, plan: 'Discharge.' }))).not.toBe(n.signature.contentHash)

    expect(await noteEvents(session.id)).toEqual([
      { sessionId: session.id, noteId, kind: 'NOTE', appointmentId: session.appointmentId },
    ])
  })

  it('refuses every change to a signed note with 409 note_locked, and the database refuses it too', async () => {
    const { session, goalId, providerId } = await sessionWithGoal()
    const draft = await platform.http.post(notesOf(session.id), { token, body: fullNote(goalId) })
    const noteId = draft.body.id
    const signer = await providerKey(platform, tenantId, providerId)
    expect(
      (await platform.http.post(`${notesOf(session.id)}/${noteId}/sign`, { token: signer, body: { providerId } }))
        .status
    ).toBe(200)

    const edit = await patchNote(session.id, noteId, { plan: 'Something else' })
    expect(edit.status).toBe(409)
    expect(edit.body.code).toBe('note_locked')
    const resign = await platform.http.post(`${notesOf(session.id)}/${noteId}/sign`, {
      token: signer,
      body: { providerId },
    })
    expect(resign.status).toBe(409)
    expect(resign.body.code).toBe('note_locked')

    // Defence in depth: even a direct UPDATE or DELETE of the signed row fails.
    // As the owner: the platform's own logins may not touch notes outside a unit at all (docs/security.md).
    const db = platform.db
    await expect(db.sessionNote.update({ where: { id: noteId }, data: { plan: 'tampered' } })).rejects.toThrow(
      /immutable/
    )
    await expect(db.sessionNote.delete({ where: { id: noteId } })).rejects.toThrow(/immutable/)
    expect((await platform.http.get(`${notesOf(session.id)}/${noteId}`, { token })).body.plan).toBe(
      fullNote(goalId).plan
    )
  })

  it('will not sign an incomplete note, and refuses goals that are not the child’s and counts that disagree', async () => {
    const { session, providerId } = await sessionWithGoal()
    const draft = await platform.http.post(notesOf(session.id), {
      token,
      body: { subjective: 'Only a subjective so far.' },
    })
    const incomplete = await platform.http.post(`${notesOf(session.id)}/${draft.body.id}/sign`, {
      token: await providerKey(platform, tenantId, providerId),
      body: { providerId },
    })
    expect(incomplete.status).toBe(400)
    expect(incomplete.body.errors.map((e: { path: string; code: string }) => `${e.path}:${e.code}`).sort()).toEqual([
      'assessment:required_to_sign',
      'objective:required_to_sign',
      'plan:required_to_sign',
    ])

    const foreignGoal = await platform.http.post(notesOf(session.id), {
      token,
      body: {
        objective: {
          goals: [
            { goalId: newId('goal'), description: 'x' },
            { description: 'y', trials: 10, correct: 5, accuracyPercent: 90 },
          ],
        },
      },
    })
    expect(foreignGoal.status).toBe(400)
    expect(foreignGoal.body.errors.map((e: { path: string; code: string }) => `${e.path}:${e.code}`).sort()).toEqual([
      'objective.goals.0.goalId:not_found',
      'objective.goals.1.accuracyPercent:accuracy_mismatch',
    ])
    const badCounts = await platform.http.post(notesOf(session.id), {
      token,
      body: { objective: { goals: [{ description: 'x', trials: 5, correct: 7 }] } },
    })
    expect(badCounts.status).toBe(400)
    expect(badCounts.body.errors).toEqual([
      expect.objectContaining({ path: 'objective.goals.0.correct', code: 'exceeds_trials' }),
    ])
    const badCueing = await platform.http.post(notesOf(session.id), {
      token,
      body: { objective: { goals: [{ description: 'x', cueingLevel: 'SOMETIMES' }] } },
    })
    expect(badCueing.body.errors).toEqual([expect.objectContaining({ path: 'objective.goals.0.cueingLevel' })])
    const listed = await platform.http.get(notesOf(session.id), { token })
    expect(listed.body.data).toHaveLength(1)
  })
})

describe('addenda', () => {
  it('adds hashed addenda, chained to the signed note, each recorded as an event; never to a draft', async () => {
    const { session, goalId, providerId } = await sessionWithGoal()
    const draft = await platform.http.post(notesOf(session.id), { token, body: fullNote(goalId) })
    const noteId = draft.body.id
    const early = await platform.http.post(`${notesOf(session.id)}/${noteId}/addenda`, {
      token,
      body: { text: 'Too early' },
    })
    expect(early.status).toBe(409)
    expect(early.body.code).toBe('invalid_state_transition')

    const asProvider = await providerKey(platform, tenantId, providerId)
    const signed = await platform.http.post(`${notesOf(session.id)}/${noteId}/sign`, {
      token: asProvider,
      body: { providerId },
    })
    const lateEntry = { reason: 'LATE_ENTRY', text: 'Caregiver reported an ear infection diagnosed the day before.' }
    // Written in the provider's name only by the provider's own linked credential, not by any `sessions` client.
    const inTheirName = await platform.http.post(`${notesOf(session.id)}/${noteId}/addenda`, {
      token,
      body: { ...lateEntry, providerId },
    })
    expect(inTheirName.status, JSON.stringify(inTheirName.body)).toBe(403)
    expect(inTheirName.body.code).toBe('forbidden')
    const addendum = await platform.http.post(`${notesOf(session.id)}/${noteId}/addenda`, {
      token: asProvider,
      body: { ...lateEntry, providerId },
    })
    expect(addendum.status).toBe(201)
    expect(addendum.body).toMatchObject({ noteId, reason: 'LATE_ENTRY', author: { type: 'api_key', providerId } })
    const a = addendum.body
    expect(
      sha256(
        canonical({
          addendumId: a.id,
          noteId: a.noteId,
          noteContentHash: signed.body.signature.contentHash,
          reason: a.reason,
          text: a.text,
          authorType: a.author.type,
          authorId: a.author.id,
          authorProviderId: a.author.providerId,
          createdAt: a.createdAt,
        })
      )
    ).toBe(a.contentHash)

    const second = await platform.http.post(`${notesOf(session.id)}/${noteId}/addenda`, {
      token,
      body: { text: 'Clarification of the plan.' },
    })
    expect(second.body).toMatchObject({ reason: 'OTHER', author: { providerId: null } })
    const unknownAuthor = await platform.http.post(`${notesOf(session.id)}/${noteId}/addenda`, {
      token,
      body: { text: 'x', providerId: newId('provider') },
    })
    expect(unknownAuthor.status).toBe(400)

    const note = await platform.http.get(`${notesOf(session.id)}/${noteId}`, { token })
    expect(note.body.addenda.map((x: { id: string }) => x.id)).toEqual([a.id, second.body.id])
    // The signed content itself is untouched by addenda.
    expect(note.body.signature.contentHash).toBe(signed.body.signature.contentHash)
    expect(note.body.plan).toBe(fullNote(goalId).plan)

    expect(await noteEvents(session.id)).toEqual([
      { sessionId: session.id, noteId, kind: 'NOTE', appointmentId: session.appointmentId },
      { sessionId: session.id, noteId: a.id, kind: 'ADDENDUM', appointmentId: session.appointmentId },
      { sessionId: session.id, noteId: second.body.id, kind: 'ADDENDUM', appointmentId: session.appointmentId },
    ])
  })
})

describe('GET /v1/sessions/{id}/notes', () => {
  it('lists a session’s notes with addenda, filtered and paginated', async () => {
    const { session, goalId, providerId } = await sessionWithGoal()
    const ids: string[] = []
    for (let i = 0; i < 3; i++)
      ids.push((await platform.http.post(notesOf(session.id), { token, body: fullNote(goalId) })).body.id)
    await platform.http.post(`${notesOf(session.id)}/${ids[1]}/sign`, {
      token: await providerKey(platform, tenantId, providerId),
      body: { providerId },
    })

    const first = await platform.http.get(`${notesOf(session.id)}?limit=2`, { token })
    expect(first.status).toBe(200)
    expect(first.body.data.map((n: { id: string }) => n.id)).toEqual(ids.slice(0, 2))
    const second = await platform.http.get(`${notesOf(session.id)}?limit=2&cursor=${first.body.nextCursor}`, { token })
    expect(second.body.data.map((n: { id: string }) => n.id)).toEqual([ids[2]])
    expect(second.body.nextCursor).toBeNull()
    const signedOnly = await platform.http.get(`${notesOf(session.id)}?status=SIGNED`, { token })
    expect(signedOnly.body.data.map((n: { id: string }) => n.id)).toEqual([ids[1]])
  })
})

describe('access', () => {
  it('hides notes from a token without sessions scope and from other tenants', async () => {
    const { session, goalId } = await sessionWithGoal()
    const draft = await platform.http.post(notesOf(session.id), { token, body: fullNote(goalId) })

    // A front-desk style token of the same tenant: bookings and children, no sessions scope.
    const limited = await platform.token(mainClient, 'bookings children')
    const noScope = await platform.http.get(notesOf(session.id), { token: limited })
    expect(noScope.status).toBe(403)
    expect(noScope.body.code).toBe('insufficient_scope')

    const otherClient = await platform.newTenant(SCOPES)
    const other = await platform.token(otherClient)
    for (const path of [notesOf(session.id), `${notesOf(session.id)}/${draft.body.id}`]) {
      const hidden = await platform.http.get(path, { token: other })
      expect(hidden.status).toBe(404)
      expect(JSON.stringify(hidden.body)).not.toContain('home program')
    }
    // Even a credential linked to a provider signs nothing of another tenant's: the note does not exist for it.
    const theirProvider = await platform.http.post('/v1/providers', {
      token: other,
      body: { name: 'Dana Whitfield', timeZone: 'America/Chicago' },
    })
    const signAcross = await platform.http.post(`${notesOf(session.id)}/${draft.body.id}/sign`, {
      token: await providerKey(platform, otherClient.tenantId, theirProvider.body.id),
      body: { providerId: session.providerId },
    })
    expect(signAcross.status).toBe(404)
    const editAcross = await patchNote(session.id, draft.body.id, { plan: 'x' }, other)
    expect(editAcross.status).toBe(404)
  })
})

describe('who signs: a credential linked to the provider, or an administrator on the record', () => {
  let issuer: TestIssuer
  let adminClient: Awaited<ReturnType<Platform['newTenant']>>
  let admin: string
  const AUDIENCE = 'therapy-care-platform'

  beforeAll(async () => {
    issuer = await startTestIssuer()
    adminClient = await platform.newTenant(['users', 'api_keys', ...SCOPES])
    admin = await platform.token(adminClient)
    const connection = await platform.http.post('/v1/sso-connections', {
      token: admin,
      body: {
        issuer: issuer.issuer,
        audience: AUDIENCE,
        roleClaim: 'groups',
        roleMapping: { therapists: 'CLINICIAN', 'front-desk': 'FRONT_DESK', 'it-admins': 'ADMIN' },
      },
    })
    expect(connection.status).toBe(201)
  })

  afterAll(async () => {
    // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- unset when beforeAll failed before assigning it
    await issuer?.close()
  })

  const user = (sub: string, groups: string[]) =>
    issuer.sign({ sub, groups, email: `${sub}@centre.example`, name: sub }, AUDIENCE)
  const sign = (sessionId: string, noteId: string, as: string, providerId: string) =>
    platform.http.post(`${notesOf(sessionId)}/${noteId}/sign`, { token: as, body: { providerId } })
  const newKey = (body: Record<string, unknown>, as = admin) =>
    platform.http.post('/v1/api-keys', {
      token: as,
      body: { name: 'EHR bridge', permissions: [{ resource: 'sessions', methods: ['GET', 'POST'] }], ...body },
    })
  const newProvider = async (as = admin) =>
    (await platform.http.post('/v1/providers', { token: as, body: { name: 'Sam Ortiz', timeZone: 'America/Chicago' } }))
      .body.id as string
  const linkUser = (email: string, providerId: string | null) =>
    platform.http
      .get('/v1/users?limit=100', { token: admin })
      .then((users) => (users.body.data as Array<{ id: string; email: string }>).find((u) => u.email === email)!.id)
      .then((id) => platform.http.request('PATCH', `/v1/users/${id}`, { token: admin, body: { providerId } }))
  const refusal = (res: { status: number; body: { code: string; detail: string } }) => [
    res.status,
    res.body.code,
    res.body.detail,
  ]

  it('signs with an API key linked to the session’s provider, never with an OAuth client or another key', async () => {
    const { session, goalId, providerId } = await sessionWithGoal(admin)
    const draft = await platform.http.post(notesOf(session.id), { token: admin, body: fullNote(goalId) })
    const otherProvider = await newProvider()

    // The body's attestation alone no longer signs: an OAuth client carries no link.
    expect(refusal(await sign(session.id, draft.body.id, admin, providerId))).toEqual([
      403,
      'not_session_provider',
      expect.stringMatching(/^An OAuth client is linked to no provider/),
    ])
    const unlinked = await newKey({})
    expect(unlinked.status).toBe(201)
    expect(unlinked.body.providerId).toBeNull()
    expect(refusal(await sign(session.id, draft.body.id, unlinked.body.secret, providerId))).toEqual([
      403,
      'not_session_provider',
      expect.stringMatching(/^This API key is linked to no provider/),
    ])
    const elsewhere = await newKey({ providerId: otherProvider })
    expect(elsewhere.body.providerId).toBe(otherProvider)
    expect(refusal(await sign(session.id, draft.body.id, elsewhere.body.secret, providerId))).toEqual([
      403,
      'not_session_provider',
      expect.stringMatching(/^This API key is linked to another provider/),
    ])

    // Linking a key is an administrator's act (the users scope), and only to a provider of the tenant.
    const noUsersScope = await newKey({ providerId }, await platform.token(adminClient, 'api_keys sessions'))
    expect([noUsersScope.status, noUsersScope.body.code]).toEqual([403, 'forbidden'])
    const notOurs = await newKey({ providerId: await newProvider(token) })
    expect(notOurs.status).toBe(400)
    expect(notOurs.body.errors).toEqual([expect.objectContaining({ path: 'providerId', code: 'not_found' })])

    const linked = await newKey({ providerId })
    expect(linked.status).toBe(201)
    const listed = await platform.http.get('/v1/api-keys?limit=100', { token: admin })
    expect(listed.body.data).toContainEqual(expect.objectContaining({ id: linked.body.id, providerId }))
    const signed = await sign(session.id, draft.body.id, linked.body.secret, providerId)
    expect(signed.status, JSON.stringify(signed.body)).toBe(200)
    expect(signed.body.signature).toMatchObject({
      providerId,
      signedBy: { type: 'api_key', id: linked.body.id },
      signedAs: 'PROVIDER',
    })
  })

  it("ends a key's link when its creator no longer administers users, though the key still works", async () => {
    const { session, goalId, providerId } = await sessionWithGoal(admin)
    const draft = await platform.http.post(notesOf(session.id), { token: admin, body: fullNote(goalId) })
    // An administrator signed in through SSO links a key to the provider: they hold `users`, so the link is made.
    const itAdmin = await user('kim', ['it-admins'])
    const key = await newKey({ providerId }, itAdmin)
    expect([key.status, key.body.providerId]).toEqual([201, providerId])
    // Demoted to clinician (no `users`): the key goes on reading sessions, but signs as nobody's provider any more.
    const users = await platform.http.get('/v1/users?limit=100', { token: admin })
    const kim = (users.body.data as Array<{ id: string; email: string }>).find((u) => u.email === 'kim@centre.example')!
    // By another administrator: a role is given only by a caller holding all of it (docs/access-control.md).
    const demoted = await platform.http.request('PATCH', `/v1/users/${kim.id}`, {
      token: await user('root', ['it-admins']),
      body: { role: 'CLINICIAN' },
    })
    expect([demoted.status, demoted.body.role]).toEqual([200, 'CLINICIAN'])
    expect((await platform.http.get(notesOf(session.id), { token: key.body.secret })).status).toBe(200)
    expect(refusal(await sign(session.id, draft.body.id, key.body.secret, providerId))).toEqual([
      403,
      'not_session_provider',
      expect.stringMatching(/^This API key is linked to no provider/),
    ])
  })

  it('lets a clinician linked to the provider sign, an administrator sign on the record, and keeps front desk out', async () => {
    const { session, goalId, providerId } = await sessionWithGoal(admin)
    const otherProvider = await newProvider()
    const clinician = await user('dana', ['therapists'])
    const draft = await platform.http.post(notesOf(session.id), { token: clinician, body: fullNote(goalId) })
    expect(draft.status).toBe(201)
    expect(draft.body.createdBy.type).toBe('user')

    expect(refusal(await sign(session.id, draft.body.id, clinician, providerId))).toEqual([
      403,
      'not_session_provider',
      expect.stringMatching(/^This user is linked to no provider/),
    ])
    const notOurs = await linkUser('dana@centre.example', await newProvider(token))
    expect([notOurs.status, notOurs.body.errors?.[0]?.code]).toEqual([400, 'not_found'])
    expect((await linkUser('dana@centre.example', otherProvider)).body.providerId).toBe(otherProvider)
    expect(refusal(await sign(session.id, draft.body.id, clinician, providerId))).toEqual([
      403,
      'not_session_provider',
      expect.stringMatching(/^This user is linked to another provider/),
    ])
    const linked = await linkUser('dana@centre.example', providerId)
    expect([linked.status, linked.body.providerId]).toEqual([200, providerId])
    const signed = await sign(session.id, draft.body.id, clinician, providerId)
    expect(signed.status, JSON.stringify(signed.body)).toBe(200)
    expect(signed.body.signature).toMatchObject({
      providerId,
      signedBy: { type: 'user', id: linked.body.id },
      signedAs: 'PROVIDER',
    })

    // An administrator, linked to no provider, signs for the provider on the record: the signature says so, and the
    // call is on the audit trail under the administrator's own id.
    const second = await platform.http.post(notesOf(session.id), { token: admin, body: fullNote(goalId) })
    const onRecord = await sign(session.id, second.body.id, await user('root', ['it-admins']), providerId)
    expect(onRecord.status, JSON.stringify(onRecord.body)).toBe(200)
    expect(onRecord.body.signature).toMatchObject({
      providerId,
      signedBy: { type: 'user' },
      signedAs: 'ADMINISTRATOR',
    })
    const rootId = onRecord.body.signature.signedBy.id as string
    expect(rootId).not.toBe(linked.body.id)
    const read = await platform.http.get(`${notesOf(session.id)}/${second.body.id}`, { token: admin })
    expect(read.body.signature.signedAs).toBe('ADMINISTRATOR')
    const audited = await platform.db.auditEvent.findMany({
      where: { tenantId: adminClient.tenantId, actorType: 'user', actorId: rootId, method: 'POST', status: 200 },
    })
    expect(audited.map((a) => a.path)).toContain(`${notesOf(session.id)}/${second.body.id}/sign`)

    // A link removed holds at once: the next signature is refused.
    expect((await linkUser('dana@centre.example', null)).body.providerId).toBeNull()
    const third = await platform.http.post(notesOf(session.id), { token: clinician, body: fullNote(goalId) })
    expect((await sign(session.id, third.body.id, clinician, providerId)).status).toBe(403)

    const frontDesk = await user('fd', ['front-desk'])
    const readByFrontDesk = await platform.http.get(notesOf(session.id), { token: frontDesk })
    expect(readByFrontDesk.status).toBe(403)
    expect(readByFrontDesk.body.code).toBe('insufficient_scope')
  })
})
