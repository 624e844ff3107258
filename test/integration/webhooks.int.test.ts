/**
 * The webhook endpoints resource over HTTP: create (the secret shown once), list, get, merge-patch, delete, scopes,
 * tenant isolation, validation, and the URL rules against server-side request forgery under the default
 * (non-development) configuration: https:// only, public addresses only, cloud metadata never.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startPlatform, type Platform } from '../support/platform.ts'

let platform: Platform
let token: string

beforeAll(async () => {
  // No worker: nothing here is delivered. Default webhook settings of NODE_ENV=test: HTTPS, public addresses only.
  platform = await startPlatform({ withWorker: false })
  token = await platform.token(await platform.newTenant(['webhooks']))
})

afterAll(async () => {
  // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- unset when beforeAll failed before assigning it
  await platform?.stop()
})

const create = (body: Record<string, unknown>, as = token) =>
  platform.http.post('/v1/webhook-endpoints', { token: as, body })
const patch = (id: string, body: Record<string, unknown>) =>
  platform.http.request('PATCH', `/v1/webhook-endpoints/${id}`, { token, body })

/** An https URL on a public address literal: passes the rules without DNS (nothing is delivered in this file). */
const PUBLIC_URL = 'https://93.184.216.34/hooks'

describe('create, read, update, delete', () => {
  it('shows the secret only in the create response', async () => {
    const created = await create({
      url: PUBLIC_URL,
      events: ['booking.created', 'payment.succeeded'],
      description: 'Front desk',
    })
    expect(created.status).toBe(201)
    expect(created.headers.get('location')).toBe(`/v1/webhook-endpoints/${created.body.id}`)
    expect(created.body).toMatchObject({
      id: expect.stringMatching(/^we_/),
      url: PUBLIC_URL,
      events: ['booking.created', 'payment.succeeded'],
      description: 'Front desk',
      signingScheme: 'v1',
      asymmetricSigning: false,
      publicKey: null,
      enabled: true,
      disabledReason: null,
      failingSince: null,
      secret: expect.stringMatching(/^whsec_[A-Za-z0-9+/]{43}=$/),
    })
    const read = await platform.http.get(`/v1/webhook-endpoints/${created.body.id}`, { token })
    expect(read.status).toBe(200)
    expect(read.body.secret).toBeUndefined()
    const list = await platform.http.get('/v1/webhook-endpoints', { token })
    expect(JSON.stringify(list.body)).not.toContain(created.body.secret)
  })

  it('merge-patches the writable fields, disables and re-enables, deletes', async () => {
    const { body: endpoint } = await create({ url: PUBLIC_URL, events: ['*'], description: 'to change' })
    const changed = await patch(endpoint.id, { events: ['child.registered'], description: null, signingScheme: 'v2' })
    expect(changed.status).toBe(200)
    expect(changed.body).toMatchObject({
      events: ['child.registered'],
      description: null,
      signingScheme: 'v2',
      enabled: true,
    })

    const disabled = await patch(endpoint.id, { enabled: false })
    expect(disabled.body).toMatchObject({ enabled: false, disabledReason: 'MANUAL' })
    expect(disabled.body.disabledAt).toMatch(/Z$/)
    const onlyEnabled = await platform.http.get('/v1/webhook-endpoints?enabled=true', { token })
    expect(onlyEnabled.body.data.map((e: { id: string }) => e.id)).not.toContain(endpoint.id)
    const test = await platform.http.post(`/v1/webhook-endpoints/${endpoint.id}/test`, { token })
    expect(test.status).toBe(409)
    expect(test.body.code).toBe('conflict')

    const enabled = await patch(endpoint.id, { enabled: true })
    expect(enabled.body).toMatchObject({ enabled: true, disabledReason: null, disabledAt: null })

    const asymmetric = await patch(endpoint.id, { asymmetricSigning: true })
    expect(asymmetric.body.publicKey).toMatch(/^whpk_/)
    const bad = await patch(endpoint.id, { signingScheme: 'v1' })
    expect(bad.status).toBe(400)
    expect(bad.body.errors).toContainEqual(expect.objectContaining({ path: 'asymmetricSigning', code: 'requires_v2' }))

    const removed = await platform.http.request('DELETE', `/v1/webhook-endpoints/${endpoint.id}`, { token })
    expect(removed.status).toBe(204)
    expect((await platform.http.get(`/v1/webhook-endpoints/${endpoint.id}`, { token })).status).toBe(404)
  })

  it('lists with cursor pages, newest first', async () => {
    const own = await platform.token(await platform.newTenant(['webhooks']))
    const ids: string[] = []
    for (let i = 0; i < 3; i++) ids.push((await create({ url: PUBLIC_URL, events: ['*'] }, own)).body.id)
    const first = await platform.http.get('/v1/webhook-endpoints?limit=2', { token: own })
    expect(first.body.data.map((e: { id: string }) => e.id)).toEqual([ids[2], ids[1]])
    const second = await platform.http.get(`/v1/webhook-endpoints?limit=2&cursor=${first.body.nextCursor}`, {
      token: own,
    })
    expect(second.body.data.map((e: { id: string }) => e.id)).toEqual([ids[0]])
    expect(second.body.nextCursor).toBeNull()
  })

  it("hides other tenants' endpoints (404) and needs the webhooks scope to write", async () => {
    const { body: endpoint } = await create({ url: PUBLIC_URL, events: ['*'] })
    const other = await platform.token(await platform.newTenant(['webhooks']))
    for (const response of [
      await platform.http.get(`/v1/webhook-endpoints/${endpoint.id}`, { token: other }),
      await platform.http.request('PATCH', `/v1/webhook-endpoints/${endpoint.id}`, {
        token: other,
        body: { enabled: false },
      }),
      await platform.http.request('DELETE', `/v1/webhook-endpoints/${endpoint.id}`, { token: other }),
      await platform.http.post(`/v1/webhook-endpoints/${endpoint.id}/rotate-secret`, { token: other }),
      await platform.http.get(`/v1/webhook-endpoints/${endpoint.id}/deliveries`, { token: other }),
    ]) {
      expect(response.status).toBe(404)
      expect(response.body.code).toBe('not_found')
    }
    const reader = await platform.token(await platform.newTenant(['webhooks.read']))
    const refused = await create({ url: PUBLIC_URL, events: ['*'] }, reader)
    expect(refused.status).toBe(403)
    expect(refused.body.code).toBe('insufficient_scope')
    expect((await platform.http.get('/v1/webhook-endpoints', { token: reader })).status).toBe(200)
  })
})

describe('validation', () => {
  it.each([
    [{ url: PUBLIC_URL, events: [] }, 'events'],
    [{ url: PUBLIC_URL, events: ['no.such.event'] }, 'events.0'],
    [{ url: PUBLIC_URL, events: ['webhook.test'] }, 'events.0'],
    [{ url: PUBLIC_URL, events: ['*', 'booking.created'] }, 'events'],
    [{ url: PUBLIC_URL, events: ['booking.created', 'booking.created'] }, 'events'],
    [{ url: PUBLIC_URL, events: ['*'], signingScheme: 'v3' }, 'signingScheme'],
    [{ events: ['*'] }, 'url'],
  ])('refuses %j (%s)', async (body, path) => {
    const response = await create(body)
    expect(response.status).toBe(400)
    expect(response.body.code).toBe('validation_error')
    expect(response.body.errors.map((e: { path: string }) => e.path)).toContain(path)
  })
})

describe('URL rules against server-side request forgery', () => {
  it.each([
    ['http://93.184.216.34/hooks', 'https_required'],
    ['ftp://93.184.216.34/hooks', 'invalid_url'],
    ['not a url', 'invalid_url'],
    ['https://user:pass@93.184.216.34/hooks', 'invalid_url'],
    ['https://127.0.0.1/hooks', 'forbidden_address'],
    ['https://localhost:8443/hooks', 'forbidden_address'],
    ['https://[::1]/hooks', 'forbidden_address'],
    ['https://10.0.0.8/hooks', 'forbidden_address'],
    ['https://192.168.1.20/hooks', 'forbidden_address'],
    ['https://100.64.0.1/hooks', 'forbidden_address'],
    ['https://169.254.169.254/latest/meta-data', 'forbidden_address'],
    ['https://[fd00::1]/hooks', 'forbidden_address'],
    ['https://[::ffff:127.0.0.1]/hooks', 'forbidden_address'],
    ['https://0.0.0.0/hooks', 'forbidden_address'],
    ['https://no-such-host.invalid/hooks', 'unresolvable_host'],
  ])('refuses %s (%s)', async (url, code) => {
    const response = await create({ url, events: ['*'] })
    expect(response.status).toBe(400)
    expect(response.body.errors).toEqual([expect.objectContaining({ path: 'url', code })])
  })

  it('checks a changed URL again', async () => {
    const { body: endpoint } = await create({ url: PUBLIC_URL, events: ['*'] })
    const response = await patch(endpoint.id, { url: 'https://10.1.1.1/hooks' })
    expect(response.status).toBe(400)
    expect(response.body.errors[0]).toMatchObject({ path: 'url', code: 'forbidden_address' })
  })
})
