/**
 * Secrets encrypted at rest (issue 55, point 4; docs/security.md "Secrets at rest"): what a dump of the database holds
 * is no usable secret. The webhook endpoints' secrets and Ed25519 keys, the agent workflows' webhook secrets and the
 * access-token signing key are stored sealed under SECRETS_ENCRYPTION_KEYS (here a key of the file's own, given to
 * the API and the worker); every table's rows, read raw with SQL, contain neither a secret shown at creation nor the
 * private half of a key, while deliveries, agent calls and tokens still verify. Then a rotation: `secrets reseal`
 * seals legacy clear rows and the old key's values under a new key first in the ring, after which the old key can go.
 */
import { randomBytes } from 'node:crypto'
import { createLocalJWKSet, jwtVerify, type JWK } from 'jose'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startApi } from '../../api/start-api.ts'
import { newId } from '../../domain/ids.ts'
import { endpointSecretAt, signingKeyAt } from '../../domain/sealed-secrets.ts'
import { checkSealedSecrets } from '../../domain/sealed-secrets-check.ts'
import { loadConfig } from '../../infra/config.ts'
import { createLogger } from '../../infra/logger.ts'
import { startWorkerProcess } from '../../scripts/start/worker-process.ts'
import { createSecretBox, type SecretBox } from '../../infra/secret-box.ts'
import { cli } from '../support/operator-cli.ts'
import { startPlatform, type Platform, databaseEnvOf } from '../support/platform.ts'
import { startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver.ts'

const FIRST_KEY = randomBytes(32)
const KEYS = `int1:${FIRST_KEY.toString('base64')}`
const firstBox: SecretBox = createSecretBox({ currentKeyId: 'int1', keys: new Map([['int1', FIRST_KEY]]) })

let platform: Platform
let receiver: WebhookReceiver
let token: string
let tenantId: string

beforeAll(async () => {
  receiver = await startWebhookReceiver()
  platform = await startPlatform({
    overrides: {
      WEBHOOK_REQUIRE_HTTPS: 'false',
      WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
      SECRETS_ENCRYPTION_KEYS: KEYS,
    },
  })
  const client = await platform.newTenant(['children', 'clients', 'webhooks', 'ai', 'ai.read', 'agents', 'agents.read'])
  tenantId = client.tenantId
  // The first token makes the platform's first signing key.
  token = await platform.token(client)
}, 120_000)

afterAll(async () => {
  // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- unset when beforeAll failed before assigning it
  await platform?.stop()
  // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- unset when beforeAll failed before assigning it
  await receiver?.close()
})

const post = async (path: string, body?: unknown) => {
  const response = await platform.http.post(path, { token, body })
  expect([200, 201, 202], `${path}: ${JSON.stringify(response.body)}`).toContain(response.status)
  return response.body
}

/** Every row of every table of the platform's schema as text: what a dump (`pg_dump`) of the database holds. */
async function dump(): Promise<string> {
  const tables = await platform.db.$queryRaw<Array<{ name: string }>>`
    SELECT quote_ident(table_name) AS name FROM information_schema.tables
    WHERE table_schema = 'public' AND table_type = 'BASE TABLE'`
  const parts: string[] = []
  for (const { name } of tables) {
    const [row] = await platform.db.$queryRawUnsafe<Array<{ text: string | null }>>(
      `SELECT string_agg(row_to_json(t)::text, E'\\n') AS text FROM ${name} t`
    )
    parts.push(row?.text ?? '')
  }
  return parts.join('\n')
}

/** What a secret looks like inside a dump: as issued, and the base64 of its 32 bytes alone. */
const tracesOf = (secret: string) => [secret, secret.replace(/^whsec_/, '')]

describe('a dump of the database', () => {
  it('holds no secret shown at creation and no private key, while deliveries, agent calls and tokens verify', async () => {
    // A v2 endpoint with an Ed25519 key, rotated: two secrets and two private keys stored.
    const endpoint = await post('/v1/webhook-endpoints', {
      url: receiver.url('/sealed'),
      events: ['*'],
      signingScheme: 'v2',
      asymmetricSigning: true,
    })
    const rotated = await post(`/v1/webhook-endpoints/${endpoint.id}/rotate-secret`)
    // An agent workflow whose call_webhook requests are signed with its own secret.
    const assistant = await post('/v1/assistants', { name: 'Sealed helper', scope: 'tenant', tools: [] })
    const workflow = await post('/v1/agent-workflows', {
      name: 'Tell the CRM',
      trigger: { type: 'event', eventTypes: ['child.registered'] },
      agent: { assistantId: assistant.id, instructions: 'Tell the CRM about the new child.', tools: [] },
      actions: [{ type: 'call_webhook', name: 'crm', url: receiver.url('/agent') }],
    })
    const issued = [endpoint.secret, rotated.secret, workflow.webhookSecret] as string[]
    for (const secret of issued) expect(secret).toMatch(/^whsec_/)

    // The stored values are sealed under the configured key (opened here only to know what to look for).
    const stored = await platform.db.webhookEndpoint.findUniqueOrThrow({ where: { id: endpoint.id } })
    const storedKeys = [stored.signingKey!, stored.previousSigningKey!]
    for (const value of [stored.secret, stored.previousSecret!, ...storedKeys]) expect(value).toMatch(/^enc:v2:int1:/)
    const ed25519 = [
      firstBox.open(stored.signingKey!, endpointSecretAt(endpoint.id, 'signing_key')),
      firstBox.open(stored.previousSigningKey!, endpointSecretAt(endpoint.id, 'previous_signing_key')),
    ]
    // Bound to its row and column (issue 76): the key moved to the other column, or to another row, does not open.
    expect(() => firstBox.open(stored.signingKey!, endpointSecretAt(endpoint.id, 'previous_signing_key'))).toThrow(
      /moved from its row/
    )
    expect(() => firstBox.open(stored.secret, endpointSecretAt(newId('webhookEndpoint'), 'secret'))).toThrow(
      /moved from its row/
    )
    const signingKeys = await platform.db.signingKey.findMany()
    expect(signingKeys.length).toBeGreaterThan(0)
    const privateJwks = signingKeys.map((row) => {
      expect(row.privateJwk).toEqual(expect.stringMatching(/^enc:v2:int1:/))
      return JSON.parse(firstBox.open(row.privateJwk as string, signingKeyAt(row.kid))) as JWK
    })
    for (const jwk of privateJwks) expect(jwk.d).toMatch(/^[A-Za-z0-9_-]{43}$/)

    const text = await dump()
    for (const secret of issued) for (const trace of tracesOf(secret)) expect(text).not.toContain(trace)
    for (const key of ed25519) {
      expect(text).not.toContain(key)
      // The 32-byte seed, the last bytes of the PKCS#8 DER, in the base64 of any alignment.
      expect(text).not.toContain(Buffer.from(key, 'base64').subarray(-32).toString('base64').slice(0, 40))
    }
    for (const jwk of privateJwks) expect(text).not.toContain(jwk.d)

    // Deliveries still verify: the HMAC with the secret just issued, v1a with the published public key.
    receiver.verifyWith('/sealed', { secret: rotated.secret, publicKey: rotated.publicKey })
    await post(`/v1/webhook-endpoints/${endpoint.id}/test`)
    const [delivery] = await receiver.waitFor('/sealed', 1)
    expect(delivery!.verificationError).toBeUndefined()
    expect(delivery!.headers['webhook-signature']).toMatch(/^v1,\S+ v1,\S+ v1a,\S+ v1a,\S+$/)

    // The agent's webhook call is signed with the workflow's secret, opened by the worker.
    receiver.verifyWith('/agent', { secret: workflow.webhookSecret })
    const child = await post('/v1/children', { firstName: 'Maya', lastName: 'Okafor', dateOfBirth: '2023-04-18' })
    const [call] = await receiver.waitFor('/agent', 1, 90_000)
    expect(call!.verificationError).toBeUndefined()
    expect(JSON.parse(call!.body).data.subject).toMatchObject({ childId: child.id })

    // Tokens are signed with the sealed key and verify with the published key set.
    const jwks = (await platform.http.get('/.well-known/jwks.json')).body as { keys: JWK[] }
    const { payload } = await jwtVerify(token, createLocalJWKSet(jwks), { algorithms: ['ES256'] })
    expect(payload.iss).toBe(platform.config.PUBLIC_URL)
    expect((await platform.http.get(`/v1/children/${child.id}`, { token })).status).toBe(200)
  }, 150_000)
})

describe('a rotation of the key-encryption key', () => {
  it('seals legacy clear rows and the old key values under the new key; the old key can then leave the ring', async () => {
    const env = (keys: string) => ({ ...databaseEnvOf(platform.config), SECRETS_ENCRYPTION_KEYS: keys })
    // Rows written before sealing existed: an endpoint's secret and a (retired) signing key in clear. The endpoint is
    // disabled, so the worker (whose ring stays the first key) never signs with it after the re-seal.
    const legacySecret = `whsec_${randomBytes(32).toString('base64')}`
    const legacyEndpoint = newId('webhookEndpoint')
    await platform.db.webhookEndpoint.create({
      data: {
        id: legacyEndpoint,
        tenantId,
        url: receiver.url('/legacy'),
        eventTypes: ['*'],
        signingScheme: 'V1',
        secret: legacySecret,
        enabled: false,
      },
    })
    const legacyKid = newId('signingKey')
    const legacyJwk = { kty: 'EC', crv: 'P-256', x: 'x', y: 'y', d: randomBytes(32).toString('base64url') }
    await platform.db.signingKey.create({
      data: { kid: legacyKid, algorithm: 'ES256', publicJwk: {}, privateJwk: legacyJwk, retiredAt: new Date(0) },
    })

    const before = await cli(env(KEYS), 'secrets', 'status')
    expect(before.code, before.stderr).toBe(0)
    expect(before.out.columns['webhook_endpoints.secret']).toMatchObject({ clear: 1, int1: expect.any(Number) })
    expect(before.out.columns['signing_keys.private_jwk']).toMatchObject({ clear: 1 })

    // The new key goes first; the old one stays until the re-seal has run.
    const second = randomBytes(32)
    const rotatedRing = `int2:${second.toString('base64')},${KEYS}`
    const resealed = await cli(env(rotatedRing), 'secrets', 'reseal')
    expect(resealed.code, resealed.stderr).toBe(0)
    expect(resealed.out.currentKeyId).toBe('int2')
    expect(resealed.out.columns['webhook_endpoints.secret'].resealed).toBeGreaterThanOrEqual(2)
    expect(resealed.out.columns['agent_workflows.webhook_secret'].resealed).toBeGreaterThanOrEqual(1)

    // With the new key alone: every value is under it, and opens to what was issued.
    const newOnly = `int2:${second.toString('base64')}`
    const after = await cli(env(newOnly), 'secrets', 'status')
    expect(after.code, after.stderr).toBe(0)
    for (const counts of Object.values(after.out.columns as Record<string, Record<string, number>>)) {
      expect(Object.keys(counts).filter((state) => state !== 'int2')).toEqual([])
    }
    const box = createSecretBox({ currentKeyId: 'int2', keys: new Map([['int2', second]]) })
    const endpoint = await platform.db.webhookEndpoint.findUniqueOrThrow({ where: { id: legacyEndpoint } })
    expect(endpoint.secret).toMatch(/^enc:v2:int2:/)
    expect(box.open(endpoint.secret, endpointSecretAt(legacyEndpoint, 'secret'))).toBe(legacySecret)
    const key = await platform.db.signingKey.findUniqueOrThrow({ where: { kid: legacyKid } })
    expect(JSON.parse(box.open(key.privateJwk as string, signingKeyAt(legacyKid)))).toEqual(legacyJwk)
    // No clear and no unbound value is left, and that is recorded: a process checking at start refuses them from then
    // on, so a clear secret written into a row afterwards (by whoever can write the database) is not used.
    expect(resealed.out.allBound).toBe(true)
    const started = createSecretBox({ currentKeyId: 'int2', keys: new Map([['int2', second]]) })
    expect((await checkSealedSecrets(platform.db, started)).allBound).toBe(true)
    expect(() => started.open(legacySecret, endpointSecretAt(legacyEndpoint, 'secret'))).toThrow(/in clear or unbound/)
    expect(await dump()).not.toContain(legacyJwk.d)
    expect(await dump()).not.toContain(legacySecret)

    // A second pass has nothing left to do; a ring without the key a value needs says which key is missing.
    const again = await cli(env(rotatedRing), 'secrets', 'reseal')
    expect(Object.values(again.out.columns as Record<string, { resealed: number }>).map((c) => c.resealed)).toEqual(
      Object.values(again.out.columns).map(() => 0)
    )
    const lost = await cli(env(KEYS), 'secrets', 'reseal')
    expect(lost.code).toBe(1)
    expect(lost.stderr).toMatch(/sealed with key "int2", which is not in SECRETS_ENCRYPTION_KEYS/)
  }, 60_000)
})

describe('a process whose key-encryption key cannot open what the database holds (issue 76)', () => {
  it('is unready from its start, its readiness naming the column and the key; a worker refuses to start', async () => {
    // Every value is under int2 now (the rotation above): int2 with other bytes is a key that differs.
    const differs = { ...platform.workerEnv, SECRETS_ENCRYPTION_KEYS: `int2:${randomBytes(32).toString('base64')}` }
    const api = await startApi(loadConfig(differs), createLogger('silent', 'test'))
    try {
      const readiness = await fetch(api.readinessUrl!)
      expect(readiness.status).toBe(503)
      const body = (await readiness.json()) as { checks: { secrets: { status: string; error: string } } }
      expect(body.checks.secrets.status).toBe('down')
      expect(body.checks.secrets.error).toMatch(
        /webhook_endpoints\.secret: A stored secret sealed with key "int2" does not open: altered, moved from its row, or the key differs/
      )
      expect(body.checks.secrets.error).toMatch(/signing_keys\.private_jwk/)
    } finally {
      await api.stop()
    }
    // The first key alone lacks int2 altogether: the worker says so and exits rather than retry deliveries for ever.
    await expect(startWorkerProcess({ ...platform.workerEnv, SECRETS_ENCRYPTION_KEYS: KEYS })).rejects.toThrow(
      /stored secrets do not open with SECRETS_ENCRYPTION_KEYS .*sealed with key "int2", which is not in/
    )
  }, 60_000)
})
