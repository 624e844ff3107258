/**
 * `npm run sdk:vectors`: writes sdks/test-vectors/webhooks.json, the webhook signatures every SDK's tests verify, made
 * by the server's own signing code (domain/webhooks/sign-delivery.ts) from fixed secrets, bodies and times, so that
 * the TypeScript, Python and later SDKs stay byte-compatible with what the platform sends. Valid cases and the ways a
 * delivery must be refused: a changed body, another secret, a stale or future timestamp, a changed event id; and for
 * asymmetric endpoints, Ed25519 (`v1a`) signatures verified with the public key alone.
 * test/unit/scripts/sdk/webhook-test-vectors.test.ts fails when the committed file differs from a fresh generation.
 */
import { writeFile } from 'node:fs/promises'
import { fileURLToPath } from 'node:url'
import { signatureHeaders, type SigningScheme } from '../../domain/webhooks/sign-delivery.ts'
import { publicKeyOf } from '../../domain/webhooks/webhook-secrets.ts'

export interface WebhookTestVector {
  name: string
  scheme: SigningScheme
  /** What the receiver holds: the secret(s) it verifies with. */
  secrets: string[]
  /** v2 with asymmetric signing: the `whpk_` public key(s) it verifies `v1a` (Ed25519) signatures with. */
  publicKeys?: string[]
  headers: Record<string, string>
  /** The raw body as received. */
  body: string
  /** The receiver's clock, Unix seconds. */
  now: number
  toleranceSeconds: number
  /** Whether a correct verifier accepts it. */
  valid: boolean
  /** For an invalid case: the reason, in words. */
  reason?: string
}

const SECRET = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw'
const PREVIOUS_SECRET = 'whsec_C2FVsBQIhrscChlQIMV+b5sSYspob7oD'
const OTHER_SECRET = 'whsec_9Yq0d7cTKq3Wx1nM2oP5rS8tU0vX3zA6'
/** Ed25519 signing keys of test endpoints (PKCS#8 DER, base64, as the platform stores them): test material only. */
const SIGNING_KEY = 'MC4CAQAwBQYDK2VwBCIEIIAy+/gUgNs5s5DwZeLYeHFue/PSQ7wqYdiUyCwYHIj+'
const PREVIOUS_SIGNING_KEY = 'MC4CAQAwBQYDK2VwBCIEIB+JJPro885NiGV15yBbOjMKSXQGyn3+F8NU2bpvqpNZ'
const OTHER_SIGNING_KEY = 'MC4CAQAwBQYDK2VwBCIEIE3yAZKfS6/khmCbHeltNInXIUz32H3azM6m3Nzbwk55'
const T = 1_795_000_000
const EVENT_ID = 'evt_01a20000000000000000000000000001'
const BODY = JSON.stringify({
  id: EVENT_ID,
  type: 'booking.created',
  apiVersion: '2026-11-01',
  createdAt: '2026-11-18T09:46:40.000Z',
  data: { appointmentId: 'apt_01a20000000000000000000000000002', status: 'CONFIRMED' },
})

function sign(
  scheme: SigningScheme,
  secrets: string[],
  body = BODY,
  eventId = EVENT_ID,
  timestamp = T,
  signingKeys: string[] = []
) {
  return signatureHeaders({ scheme, secrets, signingKeys }, { eventId, timestamp, body })
}

/** Ed25519 (`v1a`) cases: deliveries of an asymmetric endpoint, verified with its public key alone. */
function asymmetricVectors(): WebhookTestVector[] {
  const base = { scheme: 'v2' as const, secrets: [], body: BODY, now: T + 10, toleranceSeconds: 300 }
  const signed = sign('v2', [SECRET], BODY, EVENT_ID, T, [SIGNING_KEY])
  const publicKey = publicKeyOf(SIGNING_KEY)
  return [
    {
      name: 'v2 Ed25519: valid, verified with the public key alone',
      ...base,
      publicKeys: [publicKey],
      headers: signed,
      valid: true,
    },
    {
      name: 'v2 Ed25519: signed during a key rotation, verified with the previous public key',
      ...base,
      publicKeys: [publicKeyOf(PREVIOUS_SIGNING_KEY)],
      headers: sign('v2', [SECRET], BODY, EVENT_ID, T, [SIGNING_KEY, PREVIOUS_SIGNING_KEY]),
      valid: true,
    },
    {
      name: 'v2 Ed25519: body changed after signing',
      ...base,
      publicKeys: [publicKey],
      headers: signed,
      body: BODY.replace('CONFIRMED', 'CANCELLED'),
      valid: false,
      reason: 'signature mismatch',
    },
    {
      name: "v2 Ed25519: verified with another endpoint's public key",
      ...base,
      publicKeys: [publicKeyOf(OTHER_SIGNING_KEY)],
      headers: signed,
      valid: false,
      reason: 'signature mismatch',
    },
  ]
}

export function buildWebhookTestVectors(): WebhookTestVector[] {
  const base = { body: BODY, now: T + 10, toleranceSeconds: 300 }
  const vectors: WebhookTestVector[] = []
  for (const scheme of ['v1', 'v2'] as const) {
    const signed = sign(scheme, [SECRET])
    vectors.push(
      { name: `${scheme}: valid`, scheme, secrets: [SECRET], headers: signed, ...base, valid: true },
      {
        name: `${scheme}: signed during a rotation with the new and the previous secret, verified with the previous`,
        scheme,
        secrets: [PREVIOUS_SECRET],
        headers: sign(scheme, [SECRET, PREVIOUS_SECRET]),
        ...base,
        valid: true,
      },
      {
        name: `${scheme}: the receiver holds two secrets while it rotates, the delivery is signed with one`,
        scheme,
        secrets: [OTHER_SECRET, SECRET],
        headers: signed,
        ...base,
        valid: true,
      },
      {
        name: `${scheme}: at the edge of the tolerance (300 s old)`,
        scheme,
        secrets: [SECRET],
        headers: signed,
        ...base,
        now: T + 300,
        valid: true,
      },
      {
        name: `${scheme}: body changed after signing`,
        scheme,
        secrets: [SECRET],
        headers: signed,
        ...base,
        body: BODY.replace('CONFIRMED', 'CANCELLED'),
        valid: false,
        reason: 'signature mismatch',
      },
      {
        name: `${scheme}: signed with another secret`,
        scheme,
        secrets: [SECRET],
        headers: sign(scheme, [OTHER_SECRET]),
        ...base,
        valid: false,
        reason: 'signature mismatch',
      },
      {
        name: `${scheme}: stale (301 s old)`,
        scheme,
        secrets: [SECRET],
        headers: signed,
        ...base,
        now: T + 301,
        valid: false,
        reason: 'timestamp outside the tolerance',
      },
      {
        name: `${scheme}: from the future (301 s ahead)`,
        scheme,
        secrets: [SECRET],
        headers: signed,
        ...base,
        now: T - 301,
        valid: false,
        reason: 'timestamp outside the tolerance',
      }
    )
  }
  vectors.push({
    name: 'v2: event id header changed after signing',
    scheme: 'v2',
    secrets: [SECRET],
    headers: { ...sign('v2', [SECRET]), 'webhook-id': 'evt_01a20000000000000000000000000009' },
    body: BODY,
    now: T + 10,
    toleranceSeconds: 300,
    valid: false,
    reason: 'signature mismatch',
  })
  vectors.push(...asymmetricVectors())
  return vectors
}

export const VECTORS_PATH = fileURLToPath(new URL('../../sdks/test-vectors/webhooks.json', import.meta.url))

export const vectorsFileText = () =>
  `${JSON.stringify({ description: 'Generated by scripts/sdk/webhook-test-vectors.ts: do not edit.', vectors: buildWebhookTestVectors() }, null, 2)}\n`

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  await writeFile(VECTORS_PATH, vectorsFileText())
  console.log(`wrote ${VECTORS_PATH}`)
}
