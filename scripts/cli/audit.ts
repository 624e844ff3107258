/** @module `audit verify`: checks a tenant's audit hash chain (docs/audit-trail.md). */
import { parseArgs } from 'node:util'
import { verifyTenantChain } from '../../domain/audit/verify-chain.ts'
import { runInUnitOfWork } from '../../infra/unit-of-work.ts'
import { printJson, withDatabase, type CliContext } from './database.ts'
import { AUDIT_USAGE, required, UsageError } from './usage.ts'

/**
 * Verifies a tenant's audit chain (`platform`: the chain of unauthenticated calls) and prints the same report as
 * GET /v1/audit-events/verify; exits 1 when it is broken. Seals what has committed first (`--no-seal`: does not, to
 * check that the API's sealer is running), then reads as the tenant, through row-level security, one short
 * transaction per batch.
 * @returns the exit code: 1 when the chain is broken
 */
export async function audit(command: string | undefined, args: string[], cli: CliContext): Promise<number> {
  if (command !== 'verify') throw new UsageError(AUDIT_USAGE)
  const { values } = parseArgs({
    args,
    options: { tenant: { type: 'string' }, 'no-seal': { type: 'boolean', default: false } },
  })
  const tenantId = required(values.tenant, 'tenant', AUDIT_USAGE)
  return withDatabase(cli, async (db) => {
    const report = await verifyTenantChain((work) => runInUnitOfWork(db, tenantId, work), { seal: !values['no-seal'] })
    printJson(cli, report)
    return report.valid ? 0 : 1
  })
}
