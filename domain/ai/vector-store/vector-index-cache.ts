/**
 * @module The plain-PostgreSQL store's per-process cache of loaded indexes, one per tenant, assistant and embedding
 * model, each stamped with the fingerprint of the rows it was built from. A search reads the current fingerprint
 * inside the tenant's transaction (so row-level security decides what exists) and uses the cached index only when
 * it matches; any insert or delete changes the fingerprint, so a stale index is never searched. Least recently
 * used indexes are dropped beyond a memory budget.
 */
/** What the cache holds: anything that knows its size (an index, or an index with its chunks). */
export interface Sized {
  readonly bytes: number
}

interface Entry<T extends Sized> {
  fingerprint: string
  index: T
}

export interface VectorIndexCache<T extends Sized = Sized> {
  get(key: string, fingerprint: string): T | undefined
  set(key: string, fingerprint: string, index: T): void
  /** Bytes held. */
  readonly bytes: number
  /** The budget: an index larger than this is never cached. */
  readonly maxBytes: number
}

/** Default budget: about 20,000 chunks (768 dimensions and their text). */
export const DEFAULT_CACHE_BYTES = 100 * 1024 * 1024

/**
 * Creates an LRU cache bounded by the bytes of the vectors it holds.
 * @param maxBytes - budget; an index larger than the budget is not cached at all
 */
export function createVectorIndexCache<T extends Sized = Sized>(maxBytes = DEFAULT_CACHE_BYTES): VectorIndexCache<T> {
  // A Map iterates in insertion order: re-inserting on use keeps the least recently used first.
  const entries = new Map<string, Entry<T>>()
  let bytes = 0
  return {
    get(key, fingerprint) {
      const entry = entries.get(key)
      if (!entry || entry.fingerprint !== fingerprint) return undefined
      entries.delete(key)
      entries.set(key, entry)
      return entry.index
    },
    set(key, fingerprint, index) {
      const old = entries.get(key)
      if (old) {
        bytes -= old.index.bytes
        entries.delete(key)
      }
      if (index.bytes > maxBytes) return
      entries.set(key, { fingerprint, index })
      bytes += index.bytes
      for (const [oldest, entry] of entries) {
        if (bytes <= maxBytes) break
        entries.delete(oldest)
        bytes -= entry.index.bytes
      }
    },
    get bytes() {
      return bytes
    },
    maxBytes,
  }
}
