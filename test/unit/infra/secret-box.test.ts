/**
 * Secrets at rest (infra/secret-box.ts, issue 55): sealed under the key ring's first key with AES-256-GCM, opened by
 * the key id each value names, refused when altered or when its key is gone; a rotation puts a new key first and old
 * values still open; a bound value opens only at its table, column and row (issue 76). SECRETS_ENCRYPTION_KEYS is
 * required in production, and the development key only where NODE_ENV says development or test.
 */
import { randomBytes } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import type { CodecKeyring } from '../../../infra/codec-keys.ts'
import { loadConfig } from '../../../infra/config.ts'
import { refuseImplicitDevelopmentKey, secretsKeyringFrom } from '../../../infra/secrets-keyring.ts'
import { createSecretBox, DEVELOPMENT_KEYRING, isSealedSecret, rememberingOpened } from '../../../infra/secret-box.ts'

const ring = (...entries: Array<[string, Buffer]>): CodecKeyring => ({
  currentKeyId: entries[0]![0],
  keys: new Map(entries),
})
const SECRET = `whsec_${randomBytes(32).toString('base64')}`
const [k1, k2] = [randomBytes(32), randomBytes(32)]

describe('the secret box', () => {
  it('seals under the current key and opens the value again; nothing of the secret shows', () => {
    const box = createSecretBox(ring(['k1', k1]))
    const sealed = box.seal(SECRET)
    expect(sealed).toMatch(/^enc:v1:k1:[A-Za-z0-9_-]+$/)
    expect(sealed).not.toContain(SECRET.slice(6, 20))
    expect(isSealedSecret(sealed)).toBe(true)
    expect(box.keyIdOf(sealed)).toBe('k1')
    expect(box.open(sealed)).toBe(SECRET)
    // A fresh IV each time: the same secret never seals to the same text.
    expect(box.seal(SECRET)).not.toBe(sealed)
    expect(box.open(box.seal(''))).toBe('')
  })

  it('opens a value written before sealing as it is (legacy clear)', () => {
    const box = createSecretBox(ring(['k1', k1]))
    expect(box.keyIdOf(SECRET)).toBeUndefined()
    expect(box.open(SECRET)).toBe(SECRET)
  })

  it('refuses a value sealed with another key under the same id, without quoting it', () => {
    const sealed = createSecretBox(ring(['k1', k1])).seal(SECRET)
    const other = createSecretBox(ring(['k1', k2]))
    expect(() => other.open(sealed)).toThrow(/does not open/)
    expect(() => other.open(sealed)).not.toThrow(new RegExp(sealed.slice(10, 30)))
  })

  it('refuses a value whose key left the ring, naming the key id', () => {
    const sealed = createSecretBox(ring(['k1', k1])).seal(SECRET)
    expect(() => createSecretBox(ring(['k2', k2])).open(sealed)).toThrow(
      /key "k1", which is not in SECRETS_ENCRYPTION_KEYS/
    )
  })

  it('refuses a tampered value: a flipped byte, a truncated one, or its key id changed', () => {
    const box = createSecretBox(ring(['k1', k1], ['k2', k1]))
    const sealed = box.seal(SECRET)
    const body = Buffer.from(sealed.slice('enc:v1:k1:'.length), 'base64url')
    for (const index of [0, 12, body.length - 1]) {
      const flipped = Buffer.from(body)
      flipped[index]! ^= 1
      expect(() => box.open(`enc:v1:k1:${flipped.toString('base64url')}`)).toThrow(/does not open/)
    }
    expect(() => box.open(`enc:v1:k1:${body.subarray(0, 20).toString('base64url')}`)).toThrow(/truncated|does not open/)
    // The header is authenticated: the same bytes under another id (here the same key) do not open.
    expect(() => box.open(sealed.replace('enc:v1:k1:', 'enc:v1:k2:'))).toThrow(/does not open/)
  })

  it('rotates: a new key first seals new values, and values of the old key still open', () => {
    const before = createSecretBox(ring(['k1', k1]))
    const old = before.seal(SECRET)
    const after = createSecretBox(ring(['k2', k2], ['k1', k1]))
    expect(after.currentKeyId).toBe('k2')
    expect(after.keyIdOf(after.seal(SECRET))).toBe('k2')
    expect(after.open(old)).toBe(SECRET)
    // The re-seal the CLI makes: open with whichever key, seal with the current one.
    const resealed = after.seal(after.open(old))
    expect(after.keyIdOf(resealed)).toBe('k2')
    expect(createSecretBox(ring(['k2', k2])).open(resealed)).toBe(SECRET)
  })

  it('remembering what it opened: each stored value opened once, the most recent few kept', () => {
    const box = createSecretBox(ring(['k1', k1]))
    const opened: string[] = []
    const counting = { ...box, open: (stored: string) => (opened.push(stored), box.open(stored)) }
    const remembering = rememberingOpened(counting, 2)
    const [a, b, c] = [box.seal('a'), box.seal('b'), box.seal('c')]
    expect([a, a, b, a, b].map((v) => remembering.open(v))).toEqual(['a', 'a', 'b', 'a', 'b'])
    expect(opened).toEqual([a, b])
    // A third value takes the oldest one's place: opening that one again asks the box.
    expect(remembering.open(c)).toBe('c')
    expect(remembering.open(a)).toBe('a')
    expect(opened).toEqual([a, b, c, a])
    // What it does not open it passes on as it is.
    expect(remembering.keyIdOf(a)).toBe('k1')
    expect(remembering.open(remembering.seal('d'))).toBe('d')
  })
})

describe('a sealed value bound to its place (issue 76)', () => {
  const at = (rowId: string, column = 'secret') => ({ table: 'webhook_endpoints', column, rowId })

  it('opens only at the table, column and row it was sealed for', () => {
    const box = createSecretBox(ring(['k1', k1]))
    const sealed = box.seal(SECRET, at('whe_1'))
    expect(sealed).toMatch(/^enc:v2:k1:/)
    expect(box.isBound(sealed)).toBe(true)
    expect(box.open(sealed, at('whe_1'))).toBe(SECRET)
    // Copied to another tenant's endpoint, to the previous-secret column, or opened without a place: refused.
    for (const elsewhere of [at('whe_2'), at('whe_1', 'previous_secret'), { ...at('whe_1'), table: 'agent_workflows' }])
      expect(() => box.open(sealed, elsewhere)).toThrow(
        /does not open: altered, moved from its row, or the key differs/
      )
    expect(() => box.open(sealed)).toThrow(/without naming the row/)
    // The remembering box checks the place too, not only the stored value.
    const remembering = rememberingOpened(box)
    expect(remembering.open(sealed, at('whe_1'))).toBe(SECRET)
    expect(() => remembering.open(sealed, at('whe_2'))).toThrow(/moved from its row/)
  })

  it('still opens unbound and clear values, until it is told every value was bound; then refuses them', () => {
    const box = createSecretBox(ring(['k1', k1]))
    const unbound = box.seal(SECRET)
    expect(box.isBound(unbound)).toBe(false)
    expect(box.open(unbound, at('whe_1'))).toBe(SECRET)
    expect(box.open('whsec_clear', at('whe_1'))).toBe('whsec_clear')
    box.refuseUnbound()
    expect(() => box.open(unbound, at('whe_1'))).toThrow(/in clear or unbound, .*: refused/)
    expect(() => box.open('whsec_clear', at('whe_1'))).toThrow(/in clear or unbound/)
    expect(box.open(box.seal(SECRET, at('whe_1')), at('whe_1'))).toBe(SECRET)
  })
})

describe('SECRETS_ENCRYPTION_KEYS', () => {
  const base = { DATABASE_URL: 'postgresql://u:p@localhost:5432/db' }
  const codec = `c:${randomBytes(32).toString('base64')}`

  it('is required in production, with a message that says how to make a key', () => {
    expect(() => loadConfig({ ...base, NODE_ENV: 'production', TEMPORAL_CODEC_KEYS: codec })).toThrow(
      /SECRETS_ENCRYPTION_KEYS: required when NODE_ENV=production .*openssl rand -base64 32/
    )
    expect(() => secretsKeyringFrom({ NODE_ENV: 'production' })).toThrow(/SECRETS_ENCRYPTION_KEYS: required/)
  })

  it('is the development key outside production when unset or empty, so `npm start` and the tests need no step', () => {
    expect(loadConfig(base).SECRETS_ENCRYPTION_KEYS).toBe(DEVELOPMENT_KEYRING)
    expect(loadConfig({ ...base, NODE_ENV: 'test', SECRETS_ENCRYPTION_KEYS: '' }).SECRETS_ENCRYPTION_KEYS).toBe(
      DEVELOPMENT_KEYRING
    )
    expect(secretsKeyringFrom({ NODE_ENV: 'development' })).toBe(DEVELOPMENT_KEYRING)
  })

  it('is never the development key without NODE_ENV saying development or test in so many words (issue 76)', () => {
    const refused = /SECRETS_ENCRYPTION_KEYS: required unless NODE_ENV=development or NODE_ENV=test is set/
    expect(() => secretsKeyringFrom({})).toThrow(refused)
    expect(() => refuseImplicitDevelopmentKey({ DATABASE_URL: 'postgresql://u:p@db/x' })).toThrow(refused)
    expect(() => refuseImplicitDevelopmentKey({ NODE_ENV: 'test' })).not.toThrow()
    expect(() => refuseImplicitDevelopmentKey({ SECRETS_ENCRYPTION_KEYS: `s1:${'a'.repeat(44)}` })).not.toThrow()
  })

  it('parses a ring like the codec keys: the first seals; a short key stops the boot without being quoted', () => {
    const [a, b] = [randomBytes(32).toString('base64'), randomBytes(32).toString('base64')]
    const parsed = loadConfig({ ...base, SECRETS_ENCRYPTION_KEYS: `s2:${a},s1:${b}` }).SECRETS_ENCRYPTION_KEYS
    expect(parsed.currentKeyId).toBe('s2')
    expect([...parsed.keys.keys()]).toEqual(['s2', 's1'])
    expect(secretsKeyringFrom({ SECRETS_ENCRYPTION_KEYS: `s2:${a},s1:${b}` }).currentKeyId).toBe('s2')
    const short = randomBytes(31).toString('base64')
    const message = (() => {
      try {
        secretsKeyringFrom({ SECRETS_ENCRYPTION_KEYS: `s1:${short}` })
        return ''
      } catch (error) {
        return String(error)
      }
    })()
    expect(message).toMatch(/SECRETS_ENCRYPTION_KEYS: entry 1 \(key "s1"\) is not 32 bytes/)
    expect(message).not.toContain(short)
  })
})
