/**
 * @module Sealing stored answers that carry a secret (an online payment's client secret, which lets whoever holds it
 * pay the intent): the idempotency record keeps such an answer encrypted (AES-256-GCM), so a reader of the database
 * cannot use it, and a replay opens it again (docs/payments.md, "Client secrets").
 *
 * Keys: the Temporal payload codec's keys when they are configured (the current one seals; every one opens), and a key
 * derived from the payment processor's secret API key (HKDF-SHA256). Whoever holds that API key can read any client
 * secret from the processor anyway, so deriving from it protects a stored answer exactly as well as the processor
 * protects the secret itself.
 */
import { createCipheriv, createDecipheriv, createHash, hkdfSync, randomBytes } from 'node:crypto'
import type { CodecKeyring } from './codec-keys.ts'

export interface ResponseSealer {
  seal(text: string): string
  /** @throws Error for a sealed text no configured key opens (a key removed since it was sealed) */
  open(stored: string): string
}

const PREFIX = 'sealed:v1:'
const IV_BYTES = 12
const TAG_BYTES = 16

/** Whether a stored answer is sealed. */
export const isSealed = (stored: string) => stored.startsWith(PREFIX)

/**
 * The sealer over the configured keys.
 * @returns undefined when there is no key at all (then no answer carries a secret: no processor is configured)
 */
export function createResponseSealer(input: {
  codecKeys?: CodecKeyring
  processorSecretKey?: string
}): ResponseSealer | undefined {
  const keys = new Map<string, Buffer>()
  let sealingKeyId: string | undefined
  if (input.codecKeys) {
    sealingKeyId = input.codecKeys.currentKeyId
    for (const [id, key] of input.codecKeys.keys) keys.set(id, key)
  }
  if (input.processorSecretKey) {
    const key = Buffer.from(hkdfSync('sha256', input.processorSecretKey, '', 'therapy-care stored responses', 32))
    // Named by a digest of the key itself, so a new processor key is a new id and old sealed answers say whose.
    const id = `processor-${createHash('sha256').update(key).digest('hex').slice(0, 12)}`
    keys.set(id, key)
    sealingKeyId ??= id
  }
  if (!sealingKeyId) return undefined
  const sealingId = sealingKeyId
  const sealingKey = keys.get(sealingId)!
  return {
    seal(text) {
      const iv = randomBytes(IV_BYTES)
      const cipher = createCipheriv('aes-256-gcm', sealingKey, iv)
      const sealed = Buffer.concat([iv, cipher.update(text, 'utf8'), cipher.final(), cipher.getAuthTag()])
      return `${PREFIX}${sealingId}:${sealed.toString('base64')}`
    },
    open(stored) {
      if (!isSealed(stored)) return stored
      const rest = stored.slice(PREFIX.length)
      const separator = rest.indexOf(':')
      const keyId = rest.slice(0, separator)
      const key = keys.get(keyId)
      if (separator < 0 || !key)
        throw new Error(`A stored answer is sealed with key "${keyId}", which is not configured`)
      const data = Buffer.from(rest.slice(separator + 1), 'base64')
      const decipher = createDecipheriv('aes-256-gcm', key, data.subarray(0, IV_BYTES))
      decipher.setAuthTag(data.subarray(data.length - TAG_BYTES))
      return Buffer.concat([
        decipher.update(data.subarray(IV_BYTES, data.length - TAG_BYTES)),
        decipher.final(),
      ]).toString('utf8')
    },
  }
}
