/**
 * @module One transaction per authenticated request, scoped to the caller's tenant. Everything the request writes
 * (the change, its outbox rows, its idempotency record) commits together or not at all; a 5xx rolls back the lot,
 * which is what makes "retry a failed write with the same Idempotency-Key" safe (docs/conventions.md,
 * "Idempotency").
 */
import type { MiddlewareHandler } from 'hono'
import type { Db } from '../../infra/db.ts'
import { runInUnitOfWork } from '../../infra/unit-of-work.ts'
import type { AppEnv } from '../app-env.ts'

/** Thrown inside the transaction to roll it back after the response has been decided. */
class Rollback extends Error {}

export const unitOfWork = (db: Db): MiddlewareHandler<AppEnv> =>
  async function unitOfWork(c, next) {
    try {
      await runInUnitOfWork(db, c.get('principal').tenantId, async (uow) => {
        c.set('uow', uow)
        await next()
        if (c.res.status >= 500) throw new Rollback()
      })
    } catch (error) {
      if (!(error instanceof Rollback)) throw error
    }
  }

/**
 * Runs the rest of the chain inside a savepoint, so a request that ends in an error leaves none of its partial
 * writes behind while the records about the request (idempotency, audit) still commit.
 */
export const handlerSavepoint = (): MiddlewareHandler<AppEnv> =>
  async function handlerSavepoint(c, next) {
    if (c.req.method === 'GET' || c.req.method === 'HEAD') return next()
    const uow = c.get('uow')
    const { tx } = uow
    // With the unit's BEGIN when nothing before the handler queried (no Idempotency-Key): no round trip of its own. A
    // handler that calls out (UnitOfWork.release) goes on in a new transaction where the savepoint is set again, so a
    // failure after the call still undoes only what the handler wrote after it.
    await uow.savepoint('handler')
    await next()
    // On success the savepoint is left open rather than released: COMMIT keeps what was written inside it, so a
    // RELEASE would only cost every write request one more round trip to the database (issue 22).
    if (c.error) await tx.$executeRaw`ROLLBACK TO SAVEPOINT handler`
  }
