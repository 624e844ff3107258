/**
 * @module An assistant's chunks loaded into process memory for exact search, shared by both vector stores: the
 * vectors in one contiguous matrix (ExactVectorIndex) plus each chunk's text and metadata, cached per process under
 * the assistant's index version (index-version.ts) and searched exactly. Exact, because approximate indexes lose
 * too much here: measured on the lexical embeddings at 5,000 chunks, pgvector's HNSW kept only 31-56% of the exact
 * top 5 (ef_search 40 to 1,000), see docs/ai.md.
 */
import { Document, type DocumentInterface } from '@langchain/core/documents'
import { Bm25Index } from '../retrieval/bm25-index.ts'
import { ExactVectorIndex } from './exact-vector-index.ts'
import type { VectorIndexCache } from './vector-index-cache.ts'

/** An assistant's chunks as loaded: the index, and each chunk's text and metadata by id. */
export interface LoadedChunks {
  index: ExactVectorIndex
  /** BM25 over the same chunks, in the same row order (term statistics of this assistant's knowledge). */
  lexical: Bm25Index
  chunks: Map<string, { content: string; metadata: Record<string, unknown> }>
  /** Vectors plus (roughly) text, for the cache's budget. */
  bytes: number
}

/** One stored chunk; `fill` writes its vector (of `dimensions` numbers) into the matrix at `offset`. */
export interface ChunkRow {
  id: string
  documentId: string
  content: string
  metadata: Record<string, unknown>
  dimensions: number
  fill(target: Float32Array, offset: number): void
}

/**
 * Builds the in-memory index of rows (all of one embedding model). Each vector is L2-normalised as it is loaded, so
 * the dot product the scan computes is the cosine similarity whatever model produced the vectors.
 */
export function loadChunks(rows: ChunkRow[]): LoadedChunks {
  const dimensions = rows[0]?.dimensions ?? 0
  const matrix = new Float32Array(rows.length * dimensions)
  for (const [i, row] of rows.entries()) {
    if (row.dimensions !== dimensions) throw new Error(`chunk ${row.id} has a vector of another size`)
    const base = i * dimensions
    row.fill(matrix, base)
    let norm = 0
    for (let j = base; j < base + dimensions; j++) norm += matrix[j]! * matrix[j]!
    if (norm > 0 && Math.abs(norm - 1) > 1e-6) {
      const scale = 1 / Math.sqrt(norm)
      for (let j = base; j < base + dimensions; j++) matrix[j]! *= scale
    }
  }
  const index = new ExactVectorIndex(
    dimensions,
    rows.map((r) => r.id),
    rows.map((r) => r.documentId),
    matrix
  )
  const chunks = new Map(rows.map((r) => [r.id, { content: r.content, metadata: r.metadata }]))
  const lexical = new Bm25Index(rows.map((r) => lexicalText(r.content, r.metadata)))
  // Text twice (UTF-16), metadata, and the postings (about as many entries as words); a chunk's span vectors are a
  // string in its metadata of several times its text's length (span-vectors.ts), counted as such.
  const spanBytes = (r: ChunkRow) => {
    const spans = r.metadata.spanVectors
    return typeof spans === 'string' ? 2 * spans.length : 0
  }
  const textBytes = rows.reduce((sum, r) => sum + 3 * r.content.length + 512 + spanBytes(r), 0)
  return { index, lexical, chunks, bytes: index.bytes + textBytes }
}

/** What BM25 indexes of a chunk: its document's title and headings (as the embeddings see them) and its text. */
export function lexicalText(content: string, metadata: Record<string, unknown>): string {
  const name = typeof metadata.documentName === 'string' ? metadata.documentName : ''
  const headings = Array.isArray(metadata.headingPath) ? (metadata.headingPath as string[]) : []
  const title = name.replace(/\.[a-z0-9]+$/i, '').replace(/[-_]+/g, ' ')
  return [title, ...headings, content].join('\n')
}

/**
 * The loaded chunks for `key` at `version`: the cached ones when the version has not changed, else `load()`'s
 * (cached when they fit the budget).
 */
export async function cachedChunks(
  cache: VectorIndexCache<LoadedChunks>,
  key: string,
  version: string,
  load: () => Promise<LoadedChunks>
): Promise<LoadedChunks> {
  const cached = cache.get(key, version)
  if (cached) return cached
  const loaded = await load()
  cache.set(key, version, loaded)
  return loaded
}

/**
 * The `k` chunks nearest to `query` by cosine similarity (higher is closer), as LangChain documents.
 * @param documentIds - when given, only chunks of these documents
 */
export function searchChunks(
  loaded: LoadedChunks,
  query: number[],
  k: number,
  documentIds?: string[]
): [DocumentInterface, number][] {
  if (loaded.index.size === 0) return []
  let norm = 0
  for (const v of query) norm += v * v
  // Scores are cosines (as pgvector's 1 − distance) even for a model whose query vectors are not unit length.
  const unit = norm > 0 && Math.abs(norm - 1) > 1e-6 ? query.map((v) => v / Math.sqrt(norm)) : query
  const hits = loaded.index.search(unit, k, documentIds ? new Set(documentIds) : undefined)
  return hits.map(({ id, score }): [DocumentInterface, number] => {
    const chunk = loaded.chunks.get(id)!
    // A copy: callers may change the metadata of what they get without touching the cache.
    return [new Document({ id, pageContent: chunk.content, metadata: structuredClone(chunk.metadata) }), score]
  })
}
