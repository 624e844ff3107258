/**
 * @module Byte helpers for webhook verification, on web-standard APIs only (TextEncoder, atob): hex and base64
 * decoding that reject malformed input instead of guessing, and the signed content built from the raw body bytes.
 */

/** A raw request body: the exact bytes received (a Node Buffer is a Uint8Array), or their text. */
export type RawBody = string | Uint8Array | ArrayBuffer

const encoder = new TextEncoder()

/** The body as bytes, without re-encoding anything the sender sent. */
export function bodyBytes(body: RawBody): Uint8Array {
  if (typeof body === 'string') return encoder.encode(body)
  return body instanceof Uint8Array ? body : new Uint8Array(body)
}

/** `prefix` (UTF-8) followed by `body`: the signed content is "<t>." or "<id>.<t>." and then the raw body. */
export function signedContent(prefix: string, body: Uint8Array): Uint8Array<ArrayBuffer> {
  const head = encoder.encode(prefix)
  const out = new Uint8Array(head.length + body.length)
  out.set(head, 0)
  out.set(body, head.length)
  return out
}

/** UTF-8 bytes of a string. */
export const utf8 = (text: string): Uint8Array<ArrayBuffer> => encoder.encode(text)

/** Decodes lowercase or uppercase hex; undefined when it is not an even run of hex digits. */
export function fromHex(hex: string): Uint8Array<ArrayBuffer> | undefined {
  if (hex.length === 0 || hex.length % 2 !== 0 || !/^[0-9a-fA-F]+$/.test(hex)) return undefined
  const out = new Uint8Array(hex.length / 2)
  for (let i = 0; i < out.length; i++) out[i] = parseInt(hex.slice(i * 2, i * 2 + 2), 16)
  return out
}

/** Decodes standard base64 (with padding optional); undefined when malformed. */
export function fromBase64(text: string): Uint8Array<ArrayBuffer> | undefined {
  if (text.length === 0 || !/^[A-Za-z0-9+/]+={0,2}$/.test(text)) return undefined
  try {
    const binary = atob(text)
    const out = new Uint8Array(binary.length)
    for (let i = 0; i < binary.length; i++) out[i] = binary.charCodeAt(i)
    return out
  } catch {
    return undefined
  }
}
