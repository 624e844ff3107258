import { randomBytes } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import { loadConfig } from '../../../infra/config.ts'

const key = (bytes = 32) => randomBytes(bytes).toString('base64')
const base = { DATABASE_URL: 'postgresql://u:p@localhost:5432/db' }

/** The message of the error `loadConfig` throws, or '' when it accepts the environment. */
function configError(env: Record<string, string>): string {
  try {
    loadConfig(env)
    return ''
  } catch (error) {
    return String(error)
  }
}

describe('TEMPORAL_CODEC_KEYS', () => {
  it('parses a key list; the first key encrypts and all of them decrypt', () => {
    const [a, b] = [key(), key()]
    const { TEMPORAL_CODEC_KEYS: keyring } = loadConfig({ ...base, TEMPORAL_CODEC_KEYS: ` kid2:${a} , kid1:${b}` })
    expect(keyring?.currentKeyId).toBe('kid2')
    expect([...keyring!.keys.keys()]).toEqual(['kid2', 'kid1'])
    expect(keyring!.keys.get('kid1')).toEqual(Buffer.from(b, 'base64'))
  })

  it('accepts base64url keys', () => {
    const urlSafe = randomBytes(32).toString('base64url')
    const { TEMPORAL_CODEC_KEYS: keyring } = loadConfig({ ...base, TEMPORAL_CODEC_KEYS: `k:${urlSafe}` })
    expect(keyring?.keys.get('k')).toEqual(Buffer.from(urlSafe, 'base64url'))
  })

  it('stops the boot on a short key, a bad entry or a repeated id, without quoting the key', () => {
    const short = key(31)
    const message = configError({ ...base, TEMPORAL_CODEC_KEYS: `k1:${short}` })
    expect(message).toMatch(/TEMPORAL_CODEC_KEYS: entry 1 \(key "k1"\) is not 32 bytes/)
    expect(message).not.toContain(short)
    expect(() => loadConfig({ ...base, TEMPORAL_CODEC_KEYS: key() })).toThrow(/entry 1 is not "<key id>:<base64 key>"/)
    expect(() => loadConfig({ ...base, TEMPORAL_CODEC_KEYS: `k1:${key()},k1:${key()}` })).toThrow(/entry 2 repeats/)
    expect(() => loadConfig({ ...base, TEMPORAL_CODEC_KEYS: 'k1:not base64!' })).toThrow(/is not base64/)
  })

  it('is required in production and optional elsewhere', () => {
    const production = { ...base, NODE_ENV: 'production' }
    expect(configError(production)).toMatch(/TEMPORAL_CODEC_KEYS: required when NODE_ENV=production/)
    expect(configError({ ...production, TEMPORAL_CODEC_KEYS: '' })).toMatch(/TEMPORAL_CODEC_KEYS: required/)
    const withSecretsKeys = { ...production, SECRETS_ENCRYPTION_KEYS: `s:${key()}` }
    expect(
      loadConfig({ ...withSecretsKeys, TEMPORAL_CODEC_KEYS: `k:${key()}` }).TEMPORAL_CODEC_KEYS?.currentKeyId
    ).toBe('k')
    expect(loadConfig({ ...base, NODE_ENV: 'development' }).TEMPORAL_CODEC_KEYS).toBeUndefined()
    expect(loadConfig({ ...base, NODE_ENV: 'test', TEMPORAL_CODEC_KEYS: '' }).TEMPORAL_CODEC_KEYS).toBeUndefined()
  })

  it('wants a long operator token and origins for CORS', () => {
    expect(() => loadConfig({ ...base, CODEC_OPERATOR_TOKEN: 'short' })).toThrow(/CODEC_OPERATOR_TOKEN/)
    expect(loadConfig({ ...base, CODEC_OPERATOR_TOKEN: '' }).CODEC_OPERATOR_TOKEN).toBeUndefined()
    expect(loadConfig(base).CODEC_CORS_ORIGINS).toEqual(['http://localhost:8233', 'http://127.0.0.1:8233'])
    const origins = loadConfig({ ...base, CODEC_CORS_ORIGINS: 'http://localhost:8233, https://temporal.example.org' })
    expect(origins.CODEC_CORS_ORIGINS).toEqual(['http://localhost:8233', 'https://temporal.example.org'])
    expect(() => loadConfig({ ...base, CODEC_CORS_ORIGINS: 'https://temporal.example.org/ui' })).toThrow(/origin/)
  })
})
