/**
 * @module The span vectors of a chunk as one compact value stored in the chunk's metadata, in both vector stores, so
 * they are written, re-embedded and deleted with the chunk and read back with it at no extra query. Each vector is
 * quantised to signed bytes with its own scale (a normalised 384-number vector: 388 bytes, cosine within ±0.003 of the
 * float one); offsets are 16-bit (a chunk is under 64 KiB). Layout, little-endian: u16 count, u16 dimensions, then per
 * span u16 start, u16 end, f32 scale, then the vectors' bytes. Base64 in the JSON.
 */
import type { SpanVector } from './answer-types.ts'

const HEADER = 4
const PER_SPAN = 8

/** Encodes spans and their vectors (all of one size) for a chunk's metadata. */
export function encodeSpanVectors(
  spans: ReadonlyArray<{ start: number; end: number; vector: ArrayLike<number> }>
): string {
  const dimensions = spans[0]?.vector.length ?? 0
  const bytes = new Uint8Array(HEADER + spans.length * (PER_SPAN + dimensions))
  const view = new DataView(bytes.buffer)
  view.setUint16(0, spans.length, true)
  view.setUint16(2, dimensions, true)
  const vectors = new Int8Array(bytes.buffer, HEADER + spans.length * PER_SPAN)
  spans.forEach((span, i) => {
    if (span.vector.length !== dimensions) throw new Error('span vectors must all have one size')
    if (span.end > 0xffff || span.start < 0 || span.start > span.end) throw new Error('span offsets out of range')
    let max = 0
    for (let d = 0; d < dimensions; d++) max = Math.max(max, Math.abs(span.vector[d]!))
    const scale = max > 0 ? max / 127 : 1
    view.setUint16(HEADER + i * PER_SPAN, span.start, true)
    view.setUint16(HEADER + i * PER_SPAN + 2, span.end, true)
    view.setFloat32(HEADER + i * PER_SPAN + 4, scale, true)
    for (let d = 0; d < dimensions; d++) vectors[i * dimensions + d] = Math.round(span.vector[d]! / scale)
  })
  return Buffer.from(bytes).toString('base64')
}

/** Decodes what {@link encodeSpanVectors} wrote; undefined for anything else (a chunk stored before spans were). */
export function decodeSpanVectors(encoded: unknown): SpanVector[] | undefined {
  if (typeof encoded !== 'string' || encoded.length === 0) return undefined
  const bytes = Buffer.from(encoded, 'base64')
  if (bytes.byteLength < HEADER) return undefined
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength)
  const count = view.getUint16(0, true)
  const dimensions = view.getUint16(2, true)
  if (bytes.byteLength !== HEADER + count * (PER_SPAN + dimensions)) return undefined
  const vectors = new Int8Array(bytes.buffer, bytes.byteOffset + HEADER + count * PER_SPAN, count * dimensions)
  return Array.from({ length: count }, (_, i) => {
    const scale = view.getFloat32(HEADER + i * PER_SPAN + 4, true)
    const vector = new Float32Array(dimensions)
    for (let d = 0; d < dimensions; d++) vector[d] = vectors[i * dimensions + d]! * scale
    return {
      start: view.getUint16(HEADER + i * PER_SPAN, true),
      end: view.getUint16(HEADER + i * PER_SPAN + 2, true),
      vector,
    }
  })
}
