import type { PGlite } from '@electric-sql/pglite'

// Frontend messages of the extended query protocol that leave a statement/portal half-way until Sync arrives.
const PARSE = 0x50 // 'P'
const BIND = 0x42 // 'B'
const DESCRIBE = 0x44 // 'D'
const EXECUTE = 0x45 // 'E'
const CLOSE = 0x43 // 'C'
const FLUSH = 0x48 // 'H'
// Messages after which the backend is back at a statement boundary.
const SYNC = 0x53 // 'S'
const QUERY = 0x51 // 'Q'
const TERMINATE = 0x58 // 'X'
const FUNCTION_CALL = 0x46 // 'F'

const opensBatch = new Set([PARSE, BIND, DESCRIBE, EXECUTE, CLOSE, FLUSH])
const closesBatch = new Set([SYNC, QUERY, TERMINATE, FUNCTION_CALL])

/**
 * Wraps a PGlite instance for `PGLiteSocketServer` so that one client's extended-protocol exchange
 * (Parse/Bind/Describe/Execute ... Sync) runs without other clients' messages in between.
 *
 * Why: pglite-socket 0.1.6 queues single wire messages from all connections into the one PGlite backend, and
 * only keeps a connection's messages together while `isInTransaction()` (an explicit BEGIN) is true. `pg`
 * sends every parameterised query as Parse/Bind/Execute/Sync against the *unnamed* statement, so two pooled
 * connections interleave and bind each other's statements ("bind message supplies 1 parameters, but prepared
 * statement "" requires 3"), or worse, silently run the wrong query. The socket server's transaction-affinity
 * logic is exactly what is needed, so this reports "in transaction" from the first message of an exchange
 * until its Sync.
 *
 * Not covered: COPY FROM STDIN (CopyData messages of one client can still interleave with other clients).
 */
export function withExtendedProtocolAffinity<T extends PGlite>(db: T): T {
  let exchangeOpen = false
  type StreamOptions = Parameters<PGlite['execProtocolRawStream']>[1]

  const overrides: Partial<Record<PropertyKey, unknown>> = {
    isInTransaction: (): boolean => exchangeOpen || db.isInTransaction(),
    execProtocolRawStream: async (message: Uint8Array, options: StreamOptions): Promise<void> => {
      const type = message[0] ?? 0
      try {
        await db.execProtocolRawStream(message, options)
      } finally {
        if (opensBatch.has(type)) exchangeOpen = true
        else if (closesBatch.has(type)) exchangeOpen = false
      }
    },
    // The socket server calls exec('ROLLBACK') when the connection that owns the backend disconnects; that
    // also ends any half-done exchange of it.
    exec: async (...args: Parameters<PGlite['exec']>): ReturnType<PGlite['exec']> => {
      exchangeOpen = false
      return db.exec(...args)
    },
  }

  return new Proxy(db, {
    get(target, prop) {
      if (Object.hasOwn(overrides, prop)) return overrides[prop]
      const value: unknown = Reflect.get(target, prop, target)
      // PGlite methods use private fields, so they must run with the real instance as `this`.
      return typeof value === 'function' ? value.bind(target) : value
    },
  })
}
