/**
 * @module The statements a domain function sends through a unit of work, recorded instead of run: so that a guard on
 * their plans (test/support/statement-plans.ts) runs the SQL the code builds, with the parameters it binds, rather
 * than a copy that could drift from it.
 */
import { Prisma } from '../../generated/prisma/client.ts'
import { AppError } from '../../domain/errors.ts'
import type { Tx } from '../../infra/db.ts'
import type { UnitOfWork } from '../../infra/unit-of-work.ts'
import type { SqlStatement } from '../../infra/unit-routing.ts'

const refused = (what: string) => () => {
  throw new Error(`a recording unit of work does not ${what}`)
}

/**
 * The statements `work` sends through its unit of work, in order: those through the driver (`query`, `execute`) and
 * the raw SQL of the transaction client (`$executeRaw`, `$queryRaw`, `$queryRawUnsafe`). None runs: each answers no
 * rows. Code that needs a row then answers as it does when none is found (an AppError such as `not_found`), which ends
 * `work` as an answer would; any other error is the test's, and thrown. Prisma's model queries are not recorded: the
 * recorder does not have them.
 * @param tenantId - the unit's tenant
 */
export async function statementsSent(
  tenantId: string,
  work: (uow: UnitOfWork) => Promise<unknown>
): Promise<SqlStatement[]> {
  const sent: SqlStatement[] = []
  const record = (statement: SqlStatement) => {
    sent.push({ text: statement.text, values: statement.values })
    return Promise.resolve([])
  }
  // Only the raw-SQL methods: a model query (`tx.provider.count`) fails here, as a TypeError the test sees.
  const tx = {
    $executeRaw: (strings: TemplateStringsArray, ...values: unknown[]) =>
      record(Prisma.sql(strings, ...values)).then(() => 0),
    $queryRaw: (strings: TemplateStringsArray, ...values: unknown[]) => record(Prisma.sql(strings, ...values)),
    $queryRawUnsafe: (text: string, ...values: unknown[]) => record({ text, values }),
  }
  const uow: UnitOfWork = {
    tx: tx as unknown as Tx,
    tenantId,
    query: record,
    execute: (text, args) => record({ text, values: args }).then(() => 0),
    // Nothing commits, so nothing runs after a commit.
    afterCommit: () => undefined,
    release: refused('release its transaction'),
    beforeRelease: refused('release its transaction'),
    savepoint: refused('set savepoints'),
    compensate: refused('compensate'),
    commitWith: refused('commit'),
  }
  try {
    await work(uow)
  } catch (error) {
    if (!(error instanceof AppError)) throw error
  }
  return sent
}
