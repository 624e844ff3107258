/**
 * The OAuth endpoints and the codec server are on the audit trail (issue 54; security review finding 12b), through
 * the real API and database: a token, revocation or introspection call is recorded on the client's tenant's chain with
 * the client as actor, a failed client authentication on the platform chain naming the client id it claimed and never
 * a secret; a codec decode on the platform chain with the operator's name, the namespace, the workflow when named and
 * the count of payloads, never their content. Operators each have a name (CODEC_OPERATORS; the shared
 * CODEC_OPERATOR_TOKEN is the operator `operator`), and decoding is not counted as failed API authentication.
 */
import { randomBytes, randomUUID } from 'node:crypto'
import { defaultPayloadConverter, type Payload } from '@temporalio/common'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { ProvisionedClient } from '../../domain/tenants/provision-client.ts'
import type { RequestOptions } from '../support/http.ts'
import { startPlatform, type Platform } from '../support/platform.ts'

const ALICE = randomBytes(32).toString('base64url')
const BOB = randomBytes(32).toString('base64url')
const SHARED = randomBytes(32).toString('base64url')
/** Failed API authentications an address may have a minute: a handful, so that counting decodes would show. */
const AUTH_FAILURES = 3

let platform: Platform
let client: ProvisionedClient

const newRequestId = () => `req_trail_${randomUUID().replace(/-/g, '')}`

/** A call with a known request id, and its one audit record (read as the login role: every chain). */
async function recorded(method: string, path: string, options: RequestOptions = {}) {
  const requestId = newRequestId()
  const response = await platform.http.request(method, path, {
    ...options,
    headers: { 'X-Request-Id': requestId, ...options.headers },
  })
  const records = await platform.api.deps.db.auditEvent.findMany({ where: { requestId } })
  expect(records, `${method} ${path} answered ${response.status}`).toHaveLength(1)
  return { response, record: records[0]! }
}

/** A payload as the codec server protocol carries it: protobuf JSON, bytes in base64. */
const toJson = ({ metadata, data }: Payload) => ({
  metadata: Object.fromEntries(Object.entries(metadata ?? {}).map(([k, v]) => [k, Buffer.from(v).toString('base64')])),
  data: Buffer.from(data ?? []).toString('base64'),
})

const bearer = (token: string) => ({ Authorization: `Bearer ${token}` })

beforeAll(async () => {
  platform = await startPlatform({
    withWorker: false,
    overrides: {
      TEMPORAL_CODEC_KEYS: `k1:${randomBytes(32).toString('base64')}`,
      CODEC_OPERATORS: `alice:${ALICE}, bob:${BOB}`,
      CODEC_OPERATOR_TOKEN: SHARED,
      AUTH_FAILURES_PER_MINUTE: String(AUTH_FAILURES),
    },
  })
  client = await platform.newTenant(['children', 'audit'])
})

afterAll(async () => {
  // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- unset when beforeAll failed before assigning it
  await platform?.stop()
})

describe('the OAuth endpoints on the audit trail', () => {
  const credentials = () => ({ client_id: client.client_id, client_secret: client.client_secret })

  it("records a token call on the client's tenant chain, with the client as actor, listed and verified there", async () => {
    const { response, record } = await recorded('POST', '/oauth/token', {
      body: { grant_type: 'client_credentials', ...credentials() },
      headers: { 'User-Agent': 'trail-test/1.0' },
    })
    expect(response.status).toBe(200)
    expect(record).toMatchObject({
      tenantId: client.tenantId,
      actorType: 'client',
      actorId: client.client_id,
      method: 'POST',
      route: '/oauth/token',
      path: '/oauth/token',
      resourceType: 'api-clients',
      resourceId: client.client_id,
      status: 200,
      userAgent: 'trail-test/1.0',
    })
    const stored = JSON.stringify(record)
    for (const secret of [client.client_secret, response.body.access_token, response.body.refresh_token]) {
      expect(stored).not.toContain(secret)
    }

    // The tenant sees it in its own trail, and its chain holds it intact.
    const token = response.body.access_token as string
    const listed = await platform.http.get(`/v1/audit-events?resourceType=api-clients`, { token })
    expect(listed.body.data.map((e: { id: string }) => e.id)).toContain(record.id)
    const verify = await platform.http.get('/v1/audit-events/verify', { token })
    expect(verify.body).toMatchObject({ valid: true })
  })

  it('records a refused grant of an authenticated client on its tenant chain (a refresh token it does not hold)', async () => {
    const { response, record } = await recorded('POST', '/oauth/token', {
      body: { grant_type: 'refresh_token', refresh_token: 'rt_not_one_of_ours', ...credentials() },
    })
    expect(response.status).toBe(400)
    expect(record).toMatchObject({ tenantId: client.tenantId, actorType: 'client', actorId: client.client_id })
    expect(JSON.stringify(record)).not.toContain('rt_not_one_of_ours')
  })

  it('records revocation and introspection with the client', async () => {
    const token = await platform.token(client)
    for (const path of ['/oauth/introspect', '/oauth/revoke']) {
      const { response, record } = await recorded('POST', path, { body: { token, ...credentials() } })
      expect(response.status).toBe(200)
      expect(record).toMatchObject({ tenantId: client.tenantId, actorType: 'client', actorId: client.client_id })
      expect(record.route).toBe(path)
      expect(JSON.stringify(record)).not.toContain(token)
    }
  })

  it('records a failed client authentication on the platform chain, naming the claimed client id, never a secret', async () => {
    const wrong = `cs_${randomBytes(16).toString('hex')}`
    const { response, record } = await recorded('POST', '/oauth/token', {
      body: { grant_type: 'client_credentials', client_id: client.client_id, client_secret: wrong },
    })
    expect(response.status).toBe(401)
    expect(record).toMatchObject({
      tenantId: 'platform',
      actorType: 'anonymous',
      actorId: null,
      resourceType: 'api-clients',
      resourceId: client.client_id,
      status: 401,
    })
    expect(JSON.stringify(record)).not.toContain(wrong)

    // By HTTP Basic too; and a "client id" that is no client id's shape (a secret pasted there) is not recorded.
    const basic = Buffer.from(`${client.client_secret}:${wrong}`).toString('base64')
    const mistaken = await recorded('POST', '/oauth/token', {
      body: { grant_type: 'client_credentials' },
      headers: { Authorization: `Basic ${basic}` },
    })
    expect(mistaken.response.status).toBe(401)
    expect(mistaken.record).toMatchObject({ tenantId: 'platform', actorType: 'anonymous', resourceId: null })
    const stored = JSON.stringify(mistaken.record)
    for (const secret of [client.client_secret, wrong]) expect(stored).not.toContain(secret)
  })
})

describe('the codec server on the audit trail', () => {
  /** Two payloads encrypted by the codec, as the UI would send them back for display. */
  async function encrypted() {
    const plain = ['{"childId":"chd_1"}', '{"note":"private"}'].map((v) => toJson(defaultPayloadConverter.toPayload(v)))
    const encoded = await platform.http.post('/codec/encode', { headers: bearer(ALICE), body: { payloads: plain } })
    expect(encoded.status).toBe(200)
    return encoded.body as { payloads: Array<{ data: string }> }
  }

  it("records each decode on the platform chain with the operator's name, namespace, workflow and count", async () => {
    const body = await encrypted()
    const { response, record } = await recorded('POST', '/codec/decode', {
      headers: { ...bearer(ALICE), 'X-Namespace': 'default', 'X-Workflow-Id': 'booking-apt_1' },
      body,
    })
    expect(response.status).toBe(200)
    expect(record).toMatchObject({
      tenantId: 'platform',
      actorType: 'operator',
      actorId: 'alice',
      method: 'POST',
      route: '/codec/decode',
      resourceType: 'payloads',
      resourceId: 'count=2&namespace=default&workflowId=booking-apt_1',
      status: 200,
    })
    // Never the payloads, encrypted or not, nor the token.
    const stored = JSON.stringify(record)
    for (const secret of [ALICE, 'private', 'chd_1', ...body.payloads.map((p) => p.data)]) {
      expect(stored).not.toContain(secret)
    }
  })

  it('tells operators apart by their token (a Basic user name is not read), the shared token as "operator"', async () => {
    const body = await encrypted()
    const asBob = `Basic ${Buffer.from(`alice:${BOB}`).toString('base64')}`
    const cases: Array<[Record<string, string>, string]> = [
      [{ Authorization: asBob }, 'bob'],
      [bearer(SHARED), 'operator'],
    ]
    for (const [headers, name] of cases) {
      const { response, record } = await recorded('POST', '/codec/decode', { headers, body })
      expect(response.status).toBe(200)
      expect(record).toMatchObject({ actorType: 'operator', actorId: name, resourceId: 'count=2' })
    }
    // The browser's sign-in is recorded too.
    const signIn = await recorded('GET', '/codec', { headers: bearer(BOB) })
    expect(signIn.record).toMatchObject({ tenantId: 'platform', actorType: 'operator', actorId: 'bob', status: 200 })
  })

  it('records a refused decode as anonymous on the platform chain', async () => {
    const { response, record } = await recorded('POST', '/codec/decode', {
      headers: bearer(`${ALICE}x`),
      body: { payloads: [] },
    })
    expect(response.status).toBe(401)
    expect(record).toMatchObject({ tenantId: 'platform', actorType: 'anonymous', actorId: null, status: 401 })
  })

  it('does not count decodes as failed API authentications: an operator decodes more than the limit a minute', async () => {
    const body = await encrypted()
    const statuses: number[] = []
    for (let i = 0; i < AUTH_FAILURES + 3; i++) {
      statuses.push((await platform.http.post('/codec/decode', { headers: bearer(ALICE), body })).status)
    }
    expect(statuses).toEqual(Array(AUTH_FAILURES + 3).fill(200))
  })
})
