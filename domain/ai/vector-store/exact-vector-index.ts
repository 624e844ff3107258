/**
 * @module Exact cosine search in process: the embeddings of one assistant's chunks in one contiguous Float32Array,
 * scanned with a dot product per chunk (the vectors are L2-normalised, so the dot product is the cosine). For the
 * thousands of chunks an assistant has, a full scan is a few milliseconds and, unlike an approximate index, never
 * misses a neighbour. Used by the plain-PostgreSQL store (over rows loaded inside the tenant's transaction) and by
 * the evaluation's in-memory runs.
 */

export interface IndexedVector {
  id: string
  /** The chunk's document, for filtering. */
  documentId: string
  vector: ArrayLike<number>
}

export interface ScoredId {
  id: string
  score: number
}

/** Encodes a vector as little-endian float32 bytes, as knowledge_chunks.embedding stores it. */
export function encodeVector(vector: ArrayLike<number>): Uint8Array<ArrayBuffer> {
  const bytes = new Uint8Array(new ArrayBuffer(vector.length * 4))
  const view = new DataView(bytes.buffer)
  for (let i = 0; i < vector.length; i++) view.setFloat32(i * 4, vector[i]!, true)
  return bytes
}

/** Decodes little-endian float32 bytes into `target` at `offset` (no intermediate copy). */
export function decodeVectorInto(bytes: Uint8Array, target: Float32Array, offset: number): void {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength)
  const n = bytes.byteLength / 4
  for (let i = 0; i < n; i++) target[offset + i] = view.getFloat32(i * 4, true)
}

/** An immutable set of same-length vectors with exact top-k cosine search. */
export class ExactVectorIndex {
  readonly size: number
  readonly dimensions: number
  private readonly ids: string[]
  private readonly documentIds: string[]
  private readonly matrix: Float32Array

  constructor(dimensions: number, ids: string[], documentIds: string[], matrix: Float32Array) {
    if (matrix.length !== ids.length * dimensions) throw new Error('matrix size does not match the ids')
    this.dimensions = dimensions
    this.size = ids.length
    this.ids = ids
    this.documentIds = documentIds
    this.matrix = matrix
  }

  /** Builds an index from vectors (each of `dimensions` numbers). */
  static from(dimensions: number, entries: IndexedVector[]): ExactVectorIndex {
    const matrix = new Float32Array(entries.length * dimensions)
    for (const [row, entry] of entries.entries()) {
      if (entry.vector.length !== dimensions)
        throw new Error(`vector ${entry.id} has ${entry.vector.length} dimensions, not ${dimensions}`)
      matrix.set(entry.vector, row * dimensions)
    }
    return new ExactVectorIndex(
      dimensions,
      entries.map((e) => e.id),
      entries.map((e) => e.documentId),
      matrix
    )
  }

  /** The id of the vector at a row (rows are in the order the index was built). */
  idAt(row: number): string {
    return this.ids[row]!
  }

  /** The document of the vector at a row. */
  documentIdAt(row: number): string {
    return this.documentIds[row]!
  }

  /** The dot product of one row with a query (its cosine when both are unit length). */
  dot(row: number, query: ArrayLike<number>): number {
    const base = row * this.dimensions
    let dot = 0
    for (let i = 0; i < this.dimensions; i++) dot += query[i]! * this.matrix[base + i]!
    return dot
  }

  /** Memory held by the matrix, for the cache's budget. */
  get bytes(): number {
    return this.matrix.byteLength
  }

  /**
   * The `k` most similar vectors, best first.
   * @param query - a vector of `dimensions` numbers
   * @param documentIds - when given, only chunks of these documents
   */
  search(query: ArrayLike<number>, k: number, documentIds?: ReadonlySet<string>): ScoredId[] {
    if (query.length !== this.dimensions)
      throw new Error(`query has ${query.length} dimensions, not ${this.dimensions}`)
    const d = this.dimensions
    // A question's lexical vector has a few dozen non-zero dimensions out of hundreds: the dot product only needs
    // those (the zeros add nothing), which makes the scan several times cheaper. Dense queries take every dimension.
    const nonZero: number[] = []
    for (let i = 0; i < d; i++) if (query[i] !== 0) nonZero.push(i)
    const dims = Int32Array.from(nonZero)
    const weights = Float32Array.from(nonZero, (i) => query[i]!)
    const sparse = dims.length < d / 4
    const dense = Float32Array.from(query)
    const matrix = this.matrix
    // A small sorted buffer beats sorting every score: k is 5 to 20 and the index holds thousands.
    const top: ScoredId[] = []
    for (let row = 0; row < this.size; row++) {
      if (documentIds && !documentIds.has(this.documentIds[row]!)) continue
      let dot = 0
      const base = row * d
      if (sparse) for (let j = 0; j < dims.length; j++) dot += weights[j]! * matrix[base + dims[j]!]!
      else for (let i = 0; i < d; i++) dot += dense[i]! * matrix[base + i]!
      if (top.length < k || dot > top[top.length - 1]!.score) {
        let at = top.length < k ? top.length : k - 1
        if (top.length < k) top.push({ id: '', score: 0 })
        while (at > 0 && top[at - 1]!.score < dot) {
          top[at] = top[at - 1]!
          at--
        }
        top[at] = { id: this.ids[row]!, score: dot }
      }
    }
    return top
  }
}
