import { randomBytes } from 'node:crypto'
import { defaultPayloadConverter, ValueError, type Payload } from '@temporalio/common'
import { describe, expect, it } from 'vitest'
import type { CodecKeyring } from '../../../infra/codec-keys.ts'
import { createPayloadCodec, ENCRYPTED_ENCODING, KEY_ID_METADATA } from '../../../infra/payload-codec.ts'

const keyring = (...ids: string[]): CodecKeyring => ({
  currentKeyId: ids[0]!,
  keys: new Map(ids.map((id) => [id, KEYS[id]!])),
})
const KEYS: Record<string, Buffer> = { k1: randomBytes(32), k2: randomBytes(32) }

const input = { tenantId: 'ten_0190aaaa', appointmentId: 'apt_0190bbbbcccc' }
const plain = () => defaultPayloadConverter.toPayload(input)
const meta = (payload: Payload, key: string) => Buffer.from(payload.metadata![key]!).toString()
const roundTrip = async (codec: ReturnType<typeof createPayloadCodec>, payload: Payload) =>
  (await codec.decode(await codec.encode([payload])))[0]!

describe('payload codec', () => {
  it('encrypts a payload, metadata included, and decrypts it back exactly', async () => {
    const codec = createPayloadCodec(keyring('k1'))
    const [encrypted] = await codec.encode([plain()])
    expect(meta(encrypted!, 'encoding')).toBe(ENCRYPTED_ENCODING)
    expect(meta(encrypted!, KEY_ID_METADATA)).toBe('k1')
    expect(Object.keys(encrypted!.metadata!).sort()).toEqual(['encoding', KEY_ID_METADATA])
    const stored = Buffer.from(encrypted!.data!).toString('latin1')
    expect(stored).not.toContain('apt_0190bbbbcccc')
    expect(stored).not.toContain('json/plain')

    const [decrypted] = await codec.decode([encrypted!])
    expect(meta(decrypted!, 'encoding')).toBe('json/plain')
    expect(defaultPayloadConverter.fromPayload(decrypted!)).toEqual(input)
  })

  it('refuses a payload whose ciphertext, IV or tag was altered', async () => {
    const codec = createPayloadCodec(keyring('k1'))
    const [encrypted] = await codec.encode([plain()])
    const length = encrypted!.data!.length
    for (const position of [0, 12, Math.floor(length / 2), length - 1]) {
      const data = Buffer.from(encrypted!.data!)
      data[position] = data[position]! ^ 0x01
      await expect(codec.decode([{ ...encrypted!, data }])).rejects.toThrow(/failed authentication/)
    }
    await expect(codec.decode([{ ...encrypted!, data: encrypted!.data!.subarray(0, 20) }])).rejects.toThrow(/truncated/)
  })

  it('refuses a payload encrypted with a key it does not know, or without a key id', async () => {
    const [encrypted] = await createPayloadCodec(keyring('k1')).encode([plain()])
    const other = createPayloadCodec(keyring('k2'))
    const error = await other.decode([encrypted!]).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(ValueError)
    expect(String(error)).toContain('Unknown encryption key id "k1"')

    const { [KEY_ID_METADATA]: _, ...withoutKeyId } = encrypted!.metadata!
    const anonymous = { ...encrypted!, metadata: withoutKeyId }
    await expect(other.decode([anonymous])).rejects.toThrow(/without an encryption-key-id/)
  })

  it('keeps decrypting old payloads after a new current key is added (rotation)', async () => {
    const [old] = await createPayloadCodec(keyring('k1')).encode([plain()])
    const rotated = createPayloadCodec(keyring('k2', 'k1'))
    expect(defaultPayloadConverter.fromPayload((await rotated.decode([old!]))[0]!)).toEqual(input)

    const [fresh] = await rotated.encode([plain()])
    expect(meta(fresh!, KEY_ID_METADATA)).toBe('k2')
    expect(defaultPayloadConverter.fromPayload(await roundTrip(rotated, plain()))).toEqual(input)
    // The old keyring cannot read what the new key wrote: the new key really is in use.
    await expect(createPayloadCodec(keyring('k1')).decode([fresh!])).rejects.toThrow(/Unknown encryption key id "k2"/)
  })

  it('uses a fresh IV for every payload, so equal inputs never give equal ciphertexts', async () => {
    const codec = createPayloadCodec(keyring('k1'))
    const encrypted = await codec.encode(Array.from({ length: 2000 }, plain))
    const ivs = new Set(encrypted.map((p) => Buffer.from(p.data!).subarray(0, 12).toString('hex')))
    const datas = new Set(encrypted.map((p) => Buffer.from(p.data!).toString('hex')))
    expect(ivs.size).toBe(2000)
    expect(datas.size).toBe(2000)
  })

  it('passes through payloads that were never encrypted (written before the codec was on)', async () => {
    const codec = createPayloadCodec(keyring('k1'))
    const [decoded] = await codec.decode([plain()])
    expect(defaultPayloadConverter.fromPayload(decoded!)).toEqual(input)
  })

  it('round-trips empty and binary payloads', async () => {
    const codec = createPayloadCodec(keyring('k1'))
    const empty = defaultPayloadConverter.toPayload(undefined)
    expect(defaultPayloadConverter.fromPayload(await roundTrip(codec, empty))).toBeUndefined()
    const bytes = new Uint8Array([0, 1, 2, 255])
    const binary = defaultPayloadConverter.toPayload(bytes)
    expect(defaultPayloadConverter.fromPayload(await roundTrip(codec, binary))).toEqual(bytes)
  })
})
