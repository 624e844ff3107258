/**
 * @module Signing material of webhook endpoints: the HMAC secret (`whsec_` + base64 of 32 random bytes, the
 * Standard Webhooks format, also accepted as an opaque string by Stripe-style v1 verifiers) and, for v2 endpoints
 * that want asymmetric signatures, an Ed25519 key pair whose public half is published as `whpk_` + base64.
 */
import { createPrivateKey, createPublicKey, generateKeyPairSync, randomBytes } from 'node:crypto'

export const SECRET_PREFIX = 'whsec_'
export const PUBLIC_KEY_PREFIX = 'whpk_'

/** A new HMAC signing secret. 256 bits: beyond guessing, and within Standard Webhooks' 24..64 bytes. */
export const newWebhookSecret = () => `${SECRET_PREFIX}${randomBytes(32).toString('base64')}`

/** A new Ed25519 private key, PKCS#8 DER in base64 (how it is stored). */
export function newSigningKey(): string {
  const { privateKey } = generateKeyPairSync('ed25519')
  return privateKey.export({ format: 'der', type: 'pkcs8' }).toString('base64')
}

/**
 * The public key of a stored Ed25519 private key, as receivers configure it: `whpk_` + base64 of the raw 32 bytes.
 * @param signingKey - PKCS#8 DER in base64, as made by {@link newSigningKey}
 */
export function publicKeyOf(signingKey: string): string {
  const privateKey = createPrivateKey({ key: Buffer.from(signingKey, 'base64'), format: 'der', type: 'pkcs8' })
  const spki = createPublicKey(privateKey).export({ format: 'der', type: 'spki' })
  // An Ed25519 SubjectPublicKeyInfo is a fixed 12-byte header followed by the 32-byte key.
  return `${PUBLIC_KEY_PREFIX}${spki.subarray(spki.length - 32).toString('base64')}`
}
