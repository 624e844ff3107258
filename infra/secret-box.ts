/**
 * @module Secrets at rest: what the platform must keep usable (the access-token signing key, webhook and agent
 * signing secrets, Ed25519 webhook keys; a hash could not sign) is stored sealed with AES-256-GCM under a
 * key-encryption key from configuration (SECRETS_ENCRYPTION_KEYS, docs/security.md "Secrets at rest"), so a dump or a
 * backup of the database holds no usable secret without that key.
 *
 * Stored form: `enc:v2:<key id>:<base64url of iv (12 bytes) | ciphertext | tag (16 bytes)>`, the `enc:v2:<key id>`
 * header authenticated with it, and the value's place as GCM's additional data: its table, column and row id (issue 76).
 * A value copied into another row, another column or another tenant's endpoint does not open there. `enc:v1:` values
 * (sealed before the binding, unbound) still open until the re-seal binds them. Each value has a fresh random IV under the key itself: the secrets are a few dozen
 * bytes, so a per-value data key wrapped by the key would add a second layer without adding anything a rotation needs
 * (a rotation re-seals the values themselves, `npm run cli -- secrets reseal`).
 *
 * Key ring: the first key seals, every key opens, so a rotation puts a new key first and removes the old one only
 * after the re-seal. A value without the `enc:` prefix is a secret written before sealing existed: it opens as itself
 * (legacy clear) until the re-seal or its next write seals it. Once a re-seal has left no clear and no unbound value
 * (it records so; domain/sealed-secrets.ts), processes refuse both ({@link SecretBox.refuseUnbound}): a clear value
 * written into the database afterwards is an attack, not an upgrade.
 */
import { createCipheriv, createDecipheriv, createHash, createSecretKey, randomBytes, type KeyObject } from 'node:crypto'
import type { CodecKeyring } from './codec-keys.ts'

/** Where a sealed value lives: it opens only there. */
export interface SecretBinding {
  table: string
  column: string
  /** The row's id (its primary key). */
  rowId: string
}

export interface SecretBox {
  /** The id of the key new values are sealed with (the ring's first). */
  readonly currentKeyId: string
  /** Seals a secret under the current key, bound to its place (unbound, the old `v1` form, without one). */
  seal(plain: string, binding?: SecretBinding): string
  /**
   * Opens a stored value at its place; a value that is not sealed (written before sealing existed) is returned as it
   * is, unless {@link SecretBox.refuseUnbound} was called.
   * @throws Error for a value sealed with a key not in the ring, altered, or bound to another place (nothing of the
   *   value is quoted)
   */
  open(stored: string, binding?: SecretBinding): string
  /** The key id a stored value is sealed with; `undefined` for a legacy clear value. */
  keyIdOf(stored: string): string | undefined
  /** Whether a stored value is sealed and bound to its place (the current form). */
  isBound(stored: string): boolean
  /** From now on, clear and unbound values are refused: every stored secret has been sealed and bound. */
  refuseUnbound(): void
}

const UNBOUND = 'enc:v1:'
const BOUND = 'enc:v2:'
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
export const isSealedSecret = (stored: string) => stored.startsWith(UNBOUND) || stored.startsWith(BOUND)

/** GCM's additional data: the header, and for a bound value its place. */
const additionalData = (header: string, binding: SecretBinding | undefined) =>
  Buffer.from(binding ? `${header}\n${binding.table}.${binding.column}\n${binding.rowId}` : header, 'utf8')

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

  let unboundRefused = false

  function keyIdOf(stored: string): string | undefined {
    if (!isSealedSecret(stored)) return undefined
    const end = stored.indexOf(':', UNBOUND.length)
    return end < 0 ? '' : stored.slice(UNBOUND.length, end)
  }

  return {
    currentKeyId: keyring.currentKeyId,
    keyIdOf,
    isBound: (stored) => stored.startsWith(BOUND),
    refuseUnbound() {
      unboundRefused = true
    },
    seal(plain, binding) {
      const header = `${binding ? BOUND : UNBOUND}${keyring.currentKeyId}`
      const iv = randomBytes(IV_BYTES)
      const cipher = createCipheriv('aes-256-gcm', sealingKey, iv)
      cipher.setAAD(additionalData(header, binding))
      const sealed = Buffer.concat([iv, cipher.update(plain, 'utf8'), cipher.final(), cipher.getAuthTag()])
      return `${header}:${sealed.toString('base64url')}`
    },
    open(stored, binding) {
      const keyId = keyIdOf(stored)
      const bound = stored.startsWith(BOUND)
      if (unboundRefused && !bound) {
        throw new Error(
          'A stored secret is in clear or unbound, and every secret of this deployment was sealed and bound ' +
            '(npm run cli -- secrets reseal): refused (docs/security.md, "Secrets at rest")'
        )
      }
      if (keyId === undefined) return stored
      const key = keys.get(keyId)
      if (!key) {
        throw new Error(
          `A stored secret is sealed with key "${keyId}", which is not in SECRETS_ENCRYPTION_KEYS (docs/security.md)`
        )
      }
      if (bound && !binding) throw new Error('A stored secret bound to its row was opened without naming the row')
      const header = stored.slice(0, stored.indexOf(':', UNBOUND.length))
      const data = Buffer.from(stored.slice(header.length + 1), 'base64url')
      if (data.length < IV_BYTES + TAG_BYTES) throw new Error(`A stored secret sealed with key "${keyId}" is truncated`)
      const decipher = createDecipheriv('aes-256-gcm', key, data.subarray(0, IV_BYTES))
      decipher.setAAD(additionalData(header, bound ? binding : undefined))
      decipher.setAuthTag(data.subarray(data.length - TAG_BYTES))
      try {
        return Buffer.concat([
          decipher.update(data.subarray(IV_BYTES, data.length - TAG_BYTES)),
          decipher.final(),
        ]).toString('utf8')
      } catch {
        // GCM's tag check: the value was altered, moved from its row, or sealed under another key of the same id.
        throw new Error(
          `A stored secret sealed with key "${keyId}" does not open: altered, moved from its row, or the key differs`
        )
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
  const opened = new Map<string, { plain: string; place: SecretBinding | undefined }>()
  const samePlace = (a: SecretBinding | undefined, b: SecretBinding | undefined) =>
    a === b ||
    (a !== undefined && b !== undefined && a.rowId === b.rowId && a.column === b.column && a.table === b.table)
  return {
    ...box,
    open(stored, binding) {
      // A stored value lives at one place: asked for at another (moved), it is opened, and refused, afresh.
      const known = opened.get(stored)
      if (known !== undefined && samePlace(known.place, binding)) return known.plain
      const plain = box.open(stored, binding)
      if (opened.size >= max) {
        const oldest = opened.keys().next()
        if (!oldest.done) opened.delete(oldest.value)
      }
      opened.set(stored, { plain, place: binding })
      return plain
    },
  }
}
