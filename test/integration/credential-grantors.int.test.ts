/**
 * Revoked means revoked, beyond API keys (issue 55, item 1): a webhook endpoint receives events only while its grantor
 * grants it. Through the real API, worker and database: the endpoints a client made, directly and through a key it
 * made, get nothing more once `npm run cli -- clients revoke` ends the client, while another client's endpoint in the
 * same tenant goes on; GET /v1/credentials lists what the client granted and says it no longer acts; an administrator
 * takes an endpoint over by enabling it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { provisionClient } from '../../domain/tenants/provision-client.ts'
import { cli as runInProcess } from '../support/operator-cli.ts'
import { startPlatform, type Platform, databaseEnvOf } from '../support/platform.ts'
import { startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver.ts'

let platform: Platform
let receiver: WebhookReceiver

beforeAll(async () => {
  receiver = await startWebhookReceiver()
  platform = await startPlatform({
    overrides: { WEBHOOK_REQUIRE_HTTPS: 'false', WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true' },
  })
}, 180_000)

afterAll(async () => {
  // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- unset when beforeAll failed before assigning it
  await platform?.stop()
  // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- unset when beforeAll failed before assigning it
  await receiver?.close()
})

const endpoint = async (token: string, path: string) => {
  const response = await platform.http.post('/v1/webhook-endpoints', {
    token,
    body: { url: receiver.url(path), events: ['child.registered'] },
  })
  expect(response.status, JSON.stringify(response.body)).toBe(201)
  return response.body as { id: string; grantedBy: string }
}

const registerChild = async (token: string) => {
  const response = await platform.http.post('/v1/children', {
    token,
    body: { firstName: 'Maya', lastName: 'Okafor', dateOfBirth: '2023-04-18' },
  })
  expect(response.status).toBe(201)
  return response.body.id as string
}

describe('a webhook endpoint and its grantor', () => {
  it('gets no event once the client that made it (or made the key that made it) is revoked; others go on', async () => {
    const db = platform.api.deps.db
    const leaving = await platform.newTenant(['children', 'webhooks', 'api_keys'])
    const { name } = await db.tenant.findUniqueOrThrow({ where: { id: leaving.tenantId } })
    const staying = await provisionClient(db, { tenantName: name, scopes: ['children', 'webhooks', 'users.read'] })
    const [leavingToken, stayingToken] = await Promise.all([platform.token(leaving), platform.token(staying)])
    const key = await platform.http.post('/v1/api-keys', {
      token: leavingToken,
      body: { name: 'integration', permissions: [{ resource: 'webhooks', methods: ['POST'] }] },
    })
    expect(key.status).toBe(201)

    const byClient = await endpoint(leavingToken, '/by-client')
    const byKey = await endpoint(key.body.secret as string, '/by-key')
    const stays = await endpoint(stayingToken, '/stays')
    expect(byClient.grantedBy).toBe(leaving.client_id)
    expect(byKey.grantedBy).toBe(key.body.id)
    await registerChild(stayingToken)
    await Promise.all(['/by-client', '/by-key', '/stays'].map((path) => receiver.waitFor(path, 1)))

    const granted = async () => {
      const response = await platform.http.get(`/v1/credentials?grantedBy=${leaving.client_id}`, {
        token: stayingToken,
      })
      expect(response.status, JSON.stringify(response.body)).toBe(200)
      return response.body.data as Array<{ type: string; id: string; grantedBy: string; active: boolean }>
    }
    expect(await granted()).toEqual([
      expect.objectContaining({ type: 'api_key', id: key.body.id, grantedBy: leaving.client_id, active: true }),
      expect.objectContaining({ type: 'webhook_endpoint', id: byClient.id, active: true }),
      expect.objectContaining({ type: 'webhook_endpoint', id: byKey.id, grantedBy: key.body.id, active: true }),
    ])

    const revoked = await runInProcess(
      { ...databaseEnvOf(platform.config) },
      ...['clients', 'revoke', '--tenant', leaving.tenantId, '--client', leaving.client_id]
    )
    expect(revoked.code, revoked.stderr).toBe(0)
    const childId = await registerChild(stayingToken)
    await receiver.waitFor('/stays', 2)
    // The event's fan-out is done once one endpoint has it: it made deliveries for the granted endpoint alone.
    const event = await db.event.findFirstOrThrow({
      where: { type: 'child.registered', data: { path: ['childId'], equals: childId } },
    })
    const deliveries = await db.webhookDelivery.findMany({ where: { eventId: event.id } })
    expect(deliveries.map((d) => d.endpointId)).toEqual([stays.id])
    expect(receiver.received('/by-client')).toHaveLength(1)
    expect(receiver.received('/by-key')).toHaveLength(1)
    expect((await granted()).map((c) => c.active)).toEqual([false, false, false])

    // An administrator takes the client's endpoint over: it is theirs, and receives again.
    const takenOver = await platform.http.request('PATCH', `/v1/webhook-endpoints/${byClient.id}`, {
      token: stayingToken,
      body: { enabled: true },
      headers: { 'Content-Type': 'application/merge-patch+json' },
    })
    expect(takenOver.status, JSON.stringify(takenOver.body)).toBe(200)
    expect(takenOver.body.grantedBy).toBe(staying.client_id)
    await registerChild(stayingToken)
    await receiver.waitFor('/by-client', 2)
    expect(receiver.received('/by-key')).toHaveLength(1)
  }, 120_000)

  it('refuses a grantor that is not a client, user or key id with a problem naming the parameter', async () => {
    const client = await platform.newTenant(['users.read'])
    const response = await platform.http.get('/v1/credentials?grantedBy=robert', {
      token: await platform.token(client),
    })
    expect(response.status).toBe(400)
    expect(response.body.code).toBe('validation_error')
  })
})
