/**
 * @module The Temporal payload codec: AES-256-GCM over every payload the platform hands to Temporal (workflow and
 * activity inputs and results, signals, queries, memos), so Temporal's database and its UI hold ciphertext
 * (docs/conventions.md, Health data in logs and workflows; docs/payload-encryption.md).
 *
 * An encrypted payload has the metadata `encoding: binary/encrypted` and `encryption-key-id: <id>`, and as data
 * IV (12 random bytes) ‖ ciphertext ‖ GCM tag (16 bytes) of the original payload serialised as protobuf, metadata
 * included. That is the layout of Temporal's own encryption samples, so their codec tooling reads ours.
 * Search attributes are never encoded (Temporal indexes them): they carry ids only.
 */
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto'
import {
  METADATA_ENCODING_KEY,
  ValueError,
  type DataConverter,
  type Payload,
  type PayloadCodec,
} from '@temporalio/common'
// A CommonJS module whose named exports Node's ESM loader cannot detect: import it whole.
import proto from '@temporalio/proto'
import type { CodecKeyring } from './codec-keys.ts'

export const ENCRYPTED_ENCODING = 'binary/encrypted'
export const KEY_ID_METADATA = 'encryption-key-id'

const ALGORITHM = 'aes-256-gcm'
const IV_BYTES = 12
const TAG_BYTES = 16
const ProtoPayload = proto.temporal.api.common.v1.Payload

const text = (bytes: Uint8Array | null | undefined) => (bytes ? Buffer.from(bytes).toString('utf8') : undefined)

/** Whether a payload is one of ours: encrypted by this codec. */
export const isEncrypted = (payload: Payload) => text(payload.metadata?.[METADATA_ENCODING_KEY]) === ENCRYPTED_ENCODING

/**
 * Creates the codec over a keyring.
 * @param keyring - encrypts with `currentKeyId`, decrypts with any listed key
 * @returns a codec whose `decode` throws `ValueError` for a payload it cannot authenticate or has no key for
 */
export function createPayloadCodec(keyring: CodecKeyring): PayloadCodec {
  const found = keyring.keys.get(keyring.currentKeyId)
  if (!found) throw new Error(`The current codec key "${keyring.currentKeyId}" is not in the keyring.`)
  const currentKey: Buffer = found
  const keyIdBytes = Buffer.from(keyring.currentKeyId, 'utf8')
  const encodingBytes = Buffer.from(ENCRYPTED_ENCODING, 'utf8')

  function encrypt(payload: Payload): Payload {
    // A fresh random IV per payload: GCM is only safe while an IV never repeats under one key (2^32 per key).
    const iv = randomBytes(IV_BYTES)
    const cipher = createCipheriv(ALGORITHM, currentKey, iv)
    const plaintext = ProtoPayload.encode(payload).finish()
    const ciphertext = Buffer.concat([cipher.update(plaintext), cipher.final()])
    return {
      metadata: { [METADATA_ENCODING_KEY]: encodingBytes, [KEY_ID_METADATA]: keyIdBytes },
      data: Buffer.concat([iv, ciphertext, cipher.getAuthTag()]),
    }
  }

  function decrypt(payload: Payload): Payload {
    // Payloads stored before encryption was turned on stay readable.
    if (!isEncrypted(payload)) return payload
    const keyId = text(payload.metadata?.[KEY_ID_METADATA])
    if (!keyId) throw new ValueError('Encrypted payload without an encryption-key-id')
    const key = keyring.keys.get(keyId)
    if (!key) throw new ValueError(`Unknown encryption key id "${keyId}": add it to TEMPORAL_CODEC_KEYS`)
    const data = Buffer.from(payload.data ?? [])
    if (data.length < IV_BYTES + TAG_BYTES) throw new ValueError('Encrypted payload is truncated')
    const decipher = createDecipheriv(ALGORITHM, key, data.subarray(0, IV_BYTES))
    decipher.setAuthTag(data.subarray(data.length - TAG_BYTES))
    let plaintext: Buffer
    try {
      const ciphertext = data.subarray(IV_BYTES, data.length - TAG_BYTES)
      plaintext = Buffer.concat([decipher.update(ciphertext), decipher.final()])
    } catch {
      throw new ValueError(`Encrypted payload failed authentication with key "${keyId}" (altered or wrong key)`)
    }
    const decoded = ProtoPayload.decode(plaintext)
    return { metadata: { ...decoded.metadata }, data: decoded.data }
  }

  return {
    encode: async (payloads) => payloads.map(encrypt),
    decode: async (payloads) => payloads.map(decrypt),
  }
}

/**
 * The data converter of every Temporal client and worker of the platform: with the codec when keys are configured,
 * Temporal's default otherwise. Client and worker must agree, so all of them get it from here.
 */
export function temporalDataConverter(keyring: CodecKeyring | undefined): DataConverter {
  return keyring ? { payloadCodecs: [createPayloadCodec(keyring)] } : {}
}
