import { PrismaPg } from '@prisma/adapter-pg'
import {
  ColumnTypeEnum,
  type SqlDriverAdapter,
  type SqlMigrationAwareDriverAdapterFactory,
} from '@prisma/driver-adapter-utils'
import pg from 'pg'

/** A scratch database the schema engine may fill and that is thrown away afterwards. */
export interface ShadowDatabase {
  connectionString: string
  dispose(): Promise<void>
}

/** Driver adapter factory for the schema engine, plus a way to make sure nothing stays connected. */
export interface EngineAdapterFactory extends SqlMigrationAwareDriverAdapterFactory {
  /** Ends every connection this factory opened that the engine did not dispose of itself. */
  closeAll(): Promise<void>
}

/**
 * Builds the adapter factory the WASM schema engine talks to PostgreSQL through: `@prisma/adapter-pg` with
 * two corrections for migration work.
 *
 * - One connection per adapter. The engine takes `pg_advisory_lock(72707369)` to keep two migrators apart;
 *   that lock belongs to a session, so every later statement must run on the same session and the lock must
 *   be released by closing it. A pooled adapter would scatter statements over several sessions.
 * - Whole scripts in one round trip. adapter-pg's `executeScript` splits on every `;`, which breaks string
 *   literals, `$$` function bodies and `DO` blocks, and runs the pieces as separate transactions. Sending the
 *   script as one simple-protocol query is what the native engine does: PostgreSQL runs it as one implicit
 *   transaction, so a failing migration leaves nothing half-applied.
 * - `"char"` columns readable. The engine's introspection (needed to diff, not to apply) selects catalog
 *   columns of PostgreSQL's one-byte `"char"` type, which adapter-pg 7.10 rejects ("Column type 'char' could
 *   not be deserialized"); pg is told they are text, and the engine is handed them as `Character`, the type
 *   its reader expects (as text it panics on the first CHECK or EXCLUDE constraint).
 *
 * @param connectionString - the main database.
 * @param shadow - creates a throwaway database when the engine asks for a shadow database; omit for commands
 *   that never need one (applying migrations).
 */
export function createEngineAdapterFactory(
  connectionString: string,
  shadow?: () => Promise<ShadowDatabase>
): EngineAdapterFactory {
  const open = new Set<SqlDriverAdapter>()

  const connectTo = async (url: string, onDispose?: () => Promise<void>): Promise<SqlDriverAdapter> => {
    // idleTimeoutMillis 0: an idle-evicted connection would silently drop the advisory lock.
    const pool = new pg.Pool({ connectionString: url, max: 1, idleTimeoutMillis: 0 })
    // Names of the `"char"` columns of the latest result on this (single) connection.
    const charColumns = new Set<string>()
    pool.on('connect', (client) => reportCharAsText(client, charColumns))
    const adapter = await new PrismaPg(pool, { disposeExternalPool: true }).connect()
    const queryRaw = adapter.queryRaw.bind(adapter)
    adapter.queryRaw = async (query) => {
      charColumns.clear()
      const result = await queryRaw(query)
      // The engine reads these with its char getter and panics ("unreachable") on a text value: introspecting
      // any CHECK or EXCLUDE constraint (pg_constraint.contype) did that.
      const columnTypes = result.columnNames.map((name, i) =>
        charColumns.has(name) ? ColumnTypeEnum.Character : result.columnTypes[i]!
      )
      return { ...result, columnTypes }
    }
    adapter.executeScript = async (script: string): Promise<void> => {
      // No parameters: pg uses the simple query protocol, which accepts several statements at once.
      await adapter.executeRaw({ sql: script, args: [], argTypes: [] })
    }
    const dispose = adapter.dispose.bind(adapter)
    adapter.dispose = async (): Promise<void> => {
      if (!open.delete(adapter)) return
      try {
        await dispose()
      } finally {
        await onDispose?.()
      }
    }
    open.add(adapter)
    return adapter
  }

  return {
    provider: 'postgres',
    adapterName: '@prisma/adapter-pg',
    connect: () => connectTo(connectionString),
    connectToShadowDb: async () => {
      if (shadow === undefined) throw new Error('this command was not given a shadow database')
      const db = await shadow()
      try {
        return await connectTo(db.connectionString, () => db.dispose())
      } catch (error) {
        await db.dispose()
        throw error
      }
    },
    closeAll: async () => {
      const results = await Promise.allSettled([...open].map((adapter) => adapter.dispose()))
      const failed = results.find((r): r is PromiseRejectedResult => r.status === 'rejected')
      if (failed !== undefined) throw failed.reason
    },
  }
}

const CHAR_OID = 18
const TEXT_OID = 25

function relabelCharFields(result: unknown, charColumns: Set<string>): void {
  // A multi-statement script yields an array of results.
  for (const r of Array.isArray(result) ? result : [result]) {
    const fields = (r as Partial<pg.QueryResult> | undefined)?.fields ?? []
    for (const field of fields) {
      if (field.dataTypeID !== CHAR_OID) continue
      field.dataTypeID = TEXT_OID
      charColumns.add(field.name)
    }
  }
}

/** pg's node-style callback, the last argument of a callback-style query() call. */
const isCallback = (value: unknown): value is (error: unknown, result: unknown) => unknown =>
  typeof value === 'function'

/** Makes a pooled client report `"char"` result columns as `text`. */
function reportCharAsText(client: pg.PoolClient, charColumns: Set<string>): void {
  // query() has many overloads; only the two call shapes used here matter: pg-pool's (config, values,
  // callback) and adapter-pg's promise-returning (config) inside transactions.
  const query = client.query.bind(client) as (...args: unknown[]) => unknown
  const relabelled = (...args: unknown[]): unknown => {
    const callback = args.at(-1)
    if (isCallback(callback)) {
      args[args.length - 1] = (error: unknown, result: unknown): unknown => {
        if (error == null) relabelCharFields(result, charColumns)
        return callback(error, result)
      }
      return query(...args)
    }
    const pending = query(...args)
    if (!(pending instanceof Promise)) return pending
    return pending.then((result: unknown) => {
      relabelCharFields(result, charColumns)
      return result
    })
  }
  client.query = relabelled as typeof client.query
}
