/**
 * @module The PostgreSQL client. Built once per process and injected; Prisma talks to PostgreSQL through the `pg`
 * driver adapter, so no native query engine is needed.
 */
import { PrismaPg } from '@prisma/adapter-pg'
import { PrismaClient, type Prisma } from '../generated/prisma/client.ts'

export type Db = PrismaClient
/** A client bound to one interactive transaction (a request's unit of work). */
export type Tx = Prisma.TransactionClient
/** Anything that can run queries: the root client or a transaction. */
export type Queryable = Db | Tx

/**
 * Creates a Prisma client on a `pg` pool.
 * @param connectionString - a postgresql:// URL
 * @param poolMax - the pool's maximum number of connections
 */
export function createDb(connectionString: string, poolMax = 10): Db {
  return new PrismaClient({ adapter: new PrismaPg({ connectionString, max: poolMax }) })
}

/** Whether an error is PostgreSQL's or Prisma's unique-constraint violation. */
export function isUniqueViolation(error: unknown): boolean {
  const e = error as { code?: string; cause?: { code?: string } } | null
  return e?.code === 'P2002' || e?.code === '23505' || e?.cause?.code === '23505'
}
