/**
 * @module A stand-in for infra/unit-of-work.ts in unit tests of activity logic. The real `runInUnitOfWork` needs a
 * client made by `createDb` (a PostgreSQL pool); this one hands `work` the fake transaction client the test built,
 * and runs after-commit tasks only when `work` succeeded, as the real one does. There is no transaction, no rollback
 * and no row-level security here: these tests check what an activity decides, never what the database does (the
 * integration suite does that against PostgreSQL).
 *
 * Use it from a test file with:
 * `vi.mock('<path>/infra/unit-of-work.ts', () => import('<path>/test/unit/activities/fake-unit-of-work.ts'))`
 * and pass `fakeDb(tx)` wherever an activity factory takes `db`.
 */
import type { Db } from '../../../infra/db.ts'
import type { UnitOfWork } from '../../../infra/unit-of-work.ts'

/** A fake database: the transaction client every unit of work gets, and a record of the units run. */
export interface FakeDb {
  tx: unknown
  /** Tenants of the units run, in order. */
  units: string[]
}

/** Wraps a fake transaction client (only the methods the activity under test uses) as the activity's `db`. */
export function fakeDb(tx: unknown): Db & FakeDb {
  return { tx, units: [] } as unknown as Db & FakeDb
}

/** The fake `runInUnitOfWork`: same signature as the real one. */
export async function runInUnitOfWork<T>(db: Db, tenantId: string, work: (uow: UnitOfWork) => Promise<T>): Promise<T> {
  const fake = db as unknown as FakeDb
  fake.units.push(tenantId)
  const tasks: Array<() => Promise<void>> = []
  const result = await work({
    tx: fake.tx as UnitOfWork['tx'],
    tenantId,
    afterCommit: (task) => tasks.push(task),
    execute: async () => 0,
    // A `Prisma.sql` statement made through the fake client's $queryRaw, as the tagged template would call it.
    query: <Row>(statement: { text: string; values: readonly unknown[] }) => {
      const { $queryRaw } = fake.tx as {
        $queryRaw: (strings: readonly string[], ...values: unknown[]) => Promise<Row[]>
      }
      return $queryRaw((statement as unknown as { strings: readonly string[] }).strings, ...statement.values)
    },
    // No transaction to release: the call runs as is.
    release: (call) => call(),
    beforeRelease: () => undefined,
    savepoint: async () => undefined,
    compensate: () => undefined,
    commitWith: () => undefined,
  })
  for (const task of tasks) await task()
  return result
}
