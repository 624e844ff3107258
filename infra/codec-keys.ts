/**
 * @module The keys of the Temporal payload codec, from `TEMPORAL_CODEC_KEYS=<id>:<base64 key>,<id>:<base64 key>`.
 * The first key encrypts; every listed key decrypts, so a rotation puts a new key first and keeps the old ones until
 * no retained workflow history needs them (docs/payload-encryption.md). Checked at boot: a malformed or short key
 * stops the process, and no message ever quotes key material.
 */
import { z } from 'zod'

/** AES-256: 32-byte keys. */
export const CODEC_KEY_BYTES = 32

/** The keys the codec knows, by id, and the one it encrypts with. */
export interface CodecKeyring {
  currentKeyId: string
  keys: ReadonlyMap<string, Buffer>
}

const KEY_ID = /^[A-Za-z0-9._-]{1,64}$/
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/
const BASE64URL = /^[A-Za-z0-9_-]+={0,2}$/

/** What is wrong with one `<id>:<base64 key>` entry, in words that never quote the key. */
function entryProblem(id: string, encoded: string, seen: ReadonlyMap<string, Buffer>): string | undefined {
  if (!KEY_ID.test(id)) return 'is not "<key id>:<base64 key>" with an id of letters, digits, ".", "_" or "-"'
  if (seen.has(id)) return `repeats the key id "${id}"`
  if (!BASE64.test(encoded) && !BASE64URL.test(encoded)) return `(key "${id}") is not base64`
  if (Buffer.from(encoded, 'base64').length !== CODEC_KEY_BYTES) {
    return `(key "${id}") is not ${CODEC_KEY_BYTES} bytes; generate one with \`openssl rand -base64 32\``
  }
  return undefined
}

/**
 * Parses the key list; an empty value means "no keys" (codec off).
 * @example `kid2:q83vEjRWeJq8...=,kid1:AAECAwQFBgcICQoL...=` (kid2 encrypts, both decrypt)
 */
export const CodecKeysSchema = z.string().transform((value, ctx): CodecKeyring | undefined => {
  const entries = value
    .split(',')
    .map((entry) => entry.trim())
    .filter(Boolean)
  const keys = new Map<string, Buffer>()
  for (const [index, entry] of entries.entries()) {
    const separator = entry.indexOf(':')
    const id = separator < 0 ? '' : entry.slice(0, separator)
    const encoded = entry.slice(separator + 1)
    const problem = entryProblem(id, encoded, keys)
    if (problem) {
      ctx.addIssue({ code: 'custom', message: `entry ${index + 1} ${problem}` })
      return z.NEVER
    }
    keys.set(id, Buffer.from(encoded, 'base64'))
  }
  const [currentKeyId] = keys.keys()
  return currentKeyId === undefined ? undefined : { currentKeyId, keys }
})
