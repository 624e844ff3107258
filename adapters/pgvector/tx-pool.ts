/**
 * @module A `pg.Pool` look-alike that runs every query in a Prisma interactive transaction, so LangChain's
 * PGVectorStore (which talks to PostgreSQL through `pool.query`) works inside the request's unit of work: the tenant
 * is set, the role is therapy_app, row-level security applies, and the vector writes commit or roll back with the
 * rest of the request. It also keeps the embedded single-backend database from deadlocking on a second connection.
 */
import type pg from 'pg'
import type { Tx } from '../../infra/db.ts'

/**
 * Wraps a transaction as the pool PGVectorStore expects. Only `query` is supported: the store is built with
 * `skipInitializationCheck`, so it never asks for a dedicated client.
 */
export function transactionPool(tx: Tx): pg.Pool {
  const pool = {
    async query(text: string, values: unknown[] = []) {
      const rows = await tx.$queryRawUnsafe<Record<string, unknown>[]>(text, ...values)
      return { rows, rowCount: rows.length }
    },
    connect() {
      throw new Error('a transaction pool has no clients to hand out')
    },
    async end() {},
  }
  // PGVectorStore's type asks for a whole pg.Pool; it only ever calls query() (and connect/end, refused above).
  return pool as unknown as pg.Pool
}
