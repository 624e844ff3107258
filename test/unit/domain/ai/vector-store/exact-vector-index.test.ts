/** The exact in-process index of the plain-PostgreSQL store, its byte encoding, and its fingerprinted LRU cache. */
import { describe, expect, it } from 'vitest'
import {
  decodeVectorInto,
  encodeVector,
  ExactVectorIndex,
} from '../../../../../domain/ai/vector-store/exact-vector-index.ts'
import { createVectorIndexCache } from '../../../../../domain/ai/vector-store/vector-index-cache.ts'

/** A deterministic pseudo-random unit vector. */
function unitVector(seed: number, dimensions: number): number[] {
  let x = seed * 7919 + 1
  const v = Array.from({ length: dimensions }, () => {
    x = (x * 1103515245 + 12345) % 2147483648
    return x / 2147483648 - 0.5
  })
  const norm = Math.hypot(...v)
  return v.map((n) => n / norm)
}

describe('ExactVectorIndex', () => {
  const dimensions = 32
  const entries = Array.from({ length: 200 }, (_, i) => ({
    id: `c${i}`,
    documentId: `d${i % 4}`,
    vector: unitVector(i, dimensions),
  }))
  const index = ExactVectorIndex.from(dimensions, entries)
  const query = unitVector(9999, dimensions)
  const bruteForce = (filter?: (e: (typeof entries)[number]) => boolean) =>
    entries
      .filter(filter ?? (() => true))
      .map((e) => ({ id: e.id, score: e.vector.reduce((s, v, i) => s + v * query[i]!, 0) }))
      .sort((a, b) => b.score - a.score)

  it('returns the exact top k by cosine, best first', () => {
    const top = index.search(query, 7)
    expect(top.map((t) => t.id)).toEqual(
      bruteForce()
        .slice(0, 7)
        .map((t) => t.id)
    )
    for (const [i, hit] of top.entries()) expect(hit.score).toBeCloseTo(bruteForce()[i]!.score, 5)
  })

  it('gives the same ranking for a sparse query (the lexical questions) through its sparse path', () => {
    const sparse = query.map((v, i) => (i % 9 === 0 ? v : 0))
    const expected = entries
      .map((e) => ({ id: e.id, score: e.vector.reduce((s, v, i) => s + v * sparse[i]!, 0) }))
      .sort((a, b) => b.score - a.score)
      .slice(0, 5)
    const top = index.search(sparse, 5)
    expect(top.map((t) => t.id)).toEqual(expected.map((t) => t.id))
    for (const [i, hit] of top.entries()) expect(hit.score).toBeCloseTo(expected[i]!.score, 5)
  })

  it('filters by document and copes with k larger than the set', () => {
    const top = index.search(query, 500, new Set(['d1']))
    expect(top).toHaveLength(50)
    expect(top.map((t) => t.id)).toEqual(bruteForce((e) => e.documentId === 'd1').map((t) => t.id))
  })

  it('refuses vectors of another size', () => {
    expect(() => index.search([1, 0], 3)).toThrow(/dimensions/)
    expect(() => ExactVectorIndex.from(3, [{ id: 'x', documentId: 'd', vector: [1, 0] }])).toThrow(/dimensions/)
  })

  it('round-trips vectors through little-endian float32 bytes', () => {
    const vector = [0.5, -0.25, 1e-3, 0]
    const bytes = encodeVector(vector)
    expect(bytes.byteLength).toBe(16)
    const out = new Float32Array(6)
    decodeVectorInto(bytes, out, 2)
    expect(Array.from(out.slice(2))).toEqual(vector.map((v) => Math.fround(v)))
  })
})

describe('vector index cache', () => {
  const small = (n: number) =>
    ExactVectorIndex.from(
      4,
      Array.from({ length: n }, (_, i) => ({ id: `c${i}`, documentId: 'd', vector: [1, 0, 0, 0] }))
    )

  it('hits only on the same fingerprint', () => {
    const cache = createVectorIndexCache(1024)
    const index = small(2)
    cache.set('t/a/m', '2:99', index)
    expect(cache.get('t/a/m', '2:99')).toBe(index)
    expect(cache.get('t/a/m', '3:5')).toBeUndefined()
    expect(cache.get('t/b/m', '2:99')).toBeUndefined()
  })

  it('drops the least recently used beyond its budget and never holds an index larger than it', () => {
    const cache = createVectorIndexCache(100) // 16 bytes per vector of 4 dimensions
    const a = small(3)
    cache.set('a', 'f', a) // 48 bytes
    cache.set('b', 'f', small(3))
    expect(cache.get('a', 'f')).toBe(a) // a is now the most recently used
    cache.set('c', 'f', small(3))
    expect(cache.get('b', 'f')).toBeUndefined()
    expect(cache.get('a', 'f')).toBe(a)
    expect(cache.bytes).toBeLessThanOrEqual(100)
    cache.set('huge', 'f', small(10))
    expect(cache.get('huge', 'f')).toBeUndefined()
  })
})
