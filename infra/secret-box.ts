/**
 * @module Secrets at rest: what the platform must keep usable (the access-token signing key, webhook and agent
 * signing secrets, Ed25519 webhook keys; a hash could not sign) is stored sealed with AES-256-GCM under a
 * key-encryption key from configuration (SECRETS_ENCRYPTION_KEYS, docs/security.md "Secrets at rest"), so a dump or a
 * backup of the database holds no usable secret without that key.
 *
 * Stored form: `enc:v1:<key id>:<base64url of iv (12 bytes) | ciphertext | tag (16 bytes)>`, the `enc:v1:<key id>`
 * header authenticated with it. Each value has a fresh random IV under the key itself: the secrets are a few dozen
 * bytes, so a per-value data key wrapped by the key would add a second layer without adding anything a rotation needs
 * (a rotation re-seals the values themselves, `npm run cli -- secrets reseal`).
 *
 * Key ring: the first key seals, every key opens, so a rotation puts a new key first and removes the old one only
 * after the re-seal. A value without the `enc:v1:` prefix is a secret written before sealing existed: it opens as
 * itself (legacy clear) until the re-seal or its next write seals it.
 */
import { createCipheriv, createDecipheriv, createHash, createSecretKey, randomBytes, type KeyObject } from 'node:crypto'
import type { CodecKeyring } from './codec-keys.ts'

export interface SecretBox {
  /** The id of the key new values are sealed with (the ring's first). */
  readonly currentKeyId: string
  /** Seals a secret under the current key. */
  seal(plain: string): string
  /**
   * Opens a stored value; a value that is not sealed (written before sealing existed) is returned as it is.
   * @throws Error for a value sealed with a key not in the ring, or altered (nothing of the value is quoted)
   */
  open(stored: string): string
  /** The key id a stored value is sealed with; `undefined` for a legacy clear value. */
  keyIdOf(stored: string): string | undefined
}

const PREFIX = 'enc:v1:'
const IV_BYTES = 12
const TAG_BYTES = 16

/**
 * The development key ring, used when SECRETS_ENCRYPTION_KEYS is unset outside production (`npm start`, tests): a
 * fixed key anyone can derive from this line, so values sealed with it are as readable as clear text. It keeps the
 * sealed path exercised everywhere; production refuses to start without a key ring of its own (infra/config.ts).
 */
export const DEVELOPMENT_KEYRING: CodecKeyring = {
  currentKeyId: 'development',
  keys: new Map([['development', createHash('sha256').update('therapy-care development secrets key').digest()]]),
}

/** Whether a stored value is sealed (rather than a legacy clear value). */
export const isSealedSecret = (stored: string) => stored.startsWith(PREFIX)

/**
 * The box over a key ring.
 * @param keyring - SECRETS_ENCRYPTION_KEYS as parsed (infra/codec-keys.ts): the first key seals, all open
 */
export function createSecretBox(keyring: CodecKeyring): SecretBox {
  // Key objects made once: handed raw bytes, each cipher made its own and checked them (~30 us of the ~40 us an
  // opening took on Node 24), and the delivery pumps open an endpoint's secret for every attempt.
  const keys = new Map<string, KeyObject>([...keyring.keys].map(([id, bytes]) => [id, createSecretKey(bytes)]))
  const sealingKey = keys.get(keyring.currentKeyId)
  if (!sealingKey) throw new Error(`The secrets key ring has no key "${keyring.currentKeyId}"`)

  function keyIdOf(stored: string): string | undefined {
    if (!isSealedSecret(stored)) return undefined
    const end = stored.indexOf(':', PREFIX.length)
    return end < 0 ? '' : stored.slice(PREFIX.length, end)
  }

  return {
    currentKeyId: keyring.currentKeyId,
    keyIdOf,
    seal(plain) {
      const header = `${PREFIX}${keyring.currentKeyId}`
      const iv = randomBytes(IV_BYTES)
      const cipher = createCipheriv('aes-256-gcm', sealingKey, iv)
      cipher.setAAD(Buffer.from(header, 'utf8'))
      const sealed = Buffer.concat([iv, cipher.update(plain, 'utf8'), cipher.final(), cipher.getAuthTag()])
      return `${header}:${sealed.toString('base64url')}`
    },
    open(stored) {
      const keyId = keyIdOf(stored)
      if (keyId === undefined) return stored
      const key = keys.get(keyId)
      if (!key) {
        throw new Error(
          `A stored secret is sealed with key "${keyId}", which is not in SECRETS_ENCRYPTION_KEYS (docs/security.md)`
        )
      }
      const header = `${PREFIX}${keyId}`
      const data = Buffer.from(stored.slice(header.length + 1), 'base64url')
      if (data.length < IV_BYTES + TAG_BYTES) throw new Error(`A stored secret sealed with key "${keyId}" is truncated`)
      const decipher = createDecipheriv('aes-256-gcm', key, data.subarray(0, IV_BYTES))
      decipher.setAAD(Buffer.from(header, 'utf8'))
      decipher.setAuthTag(data.subarray(data.length - TAG_BYTES))
      try {
        return Buffer.concat([
          decipher.update(data.subarray(IV_BYTES, data.length - TAG_BYTES)),
          decipher.final(),
        ]).toString('utf8')
      } catch {
        // GCM's tag check: the value was altered, or sealed under another key of the same id.
        throw new Error(`A stored secret sealed with key "${keyId}" does not open: altered, or the key differs`)
      }
    },
  }
}

/**
 * A box whose `open` remembers what it opened, the `max` most recent distinct values: for a loop that opens the same
 * few endpoints' secrets for every delivery (the webhook pump, ~0.035 ms of CPU each at 1,500 deliveries a second,
 * docs/benchmarks.md). Kept only as long as the loop that made it; a rotated secret is a new stored value, so it is
 * opened afresh.
 */
export function rememberingOpened(box: SecretBox, max = 256): SecretBox {
  const opened = new Map<string, string>()
  return {
    ...box,
    open(stored) {
      const known = opened.get(stored)
      if (known !== undefined) return known
      const plain = box.open(stored)
      if (opened.size >= max) {
        const oldest = opened.keys().next()
        if (!oldest.done) opened.delete(oldest.value)
      }
      opened.set(stored, plain)
      return plain
    },
  }
}
