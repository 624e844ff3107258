/**
 * @module The sealed secrets a claim signs with (issue 76, item 5; docs/security.md, "Least privilege in the
 * database"). The pumps' claims span tenants and run as the system role, which may not select an endpoint's secret
 * columns: a claim returns each endpoint's `secrets_version` instead, and the pump asks `webhook_endpoint_secrets`
 * only for endpoints whose version it does not hold yet; the function answers only for endpoints with a PENDING
 * delivery under a lease. What is kept in memory is the sealed values (opened per attempt, attempt-delivery.ts), per
 * database client, so a rotation (which moves the version) is seen at the next claim. Asking at every claim instead
 * cost PostgreSQL 0.1 ms of CPU per delivery at 1,000 deliveries a second (docs/benchmarks.md).
 */
import type { Db } from '../../infra/db.ts'

interface EndpointSecrets {
  secrets_version: number
  secret: string
  previous_secret: string | null
  signing_key: string | null
  previous_signing_key: string | null
}

/** Endpoints kept per client; past this the memory is dropped and filled again from the claims that follow. */
const KEPT_ENDPOINTS = 10_000

const kept = new WeakMap<Db, Map<string, EndpointSecrets>>()

/**
 * Claimed rows (each with `endpoint_id` and its endpoint's `secrets_version`) with their endpoint's sealed secrets
 * under the names a delivery row has. A row whose endpoint the function did not answer for (its delivery ended by
 * another hand between the claim and this read) is left out: its lease lapses and the next claim sees what became of
 * it.
 */
export async function withEndpointSecrets(
  db: Db,
  rows: Array<Record<string, unknown>>
): Promise<Array<Record<string, unknown>>> {
  let known = kept.get(db)
  if (!known) kept.set(db, (known = new Map<string, EndpointSecrets>()))
  const current = (row: Record<string, unknown>) => {
    const secrets = known.get(row.endpoint_id as string)
    return secrets?.secrets_version === row.secrets_version ? secrets : undefined
  }
  const missing = [...new Set(rows.filter((row) => !current(row)).map((row) => row.endpoint_id as string))]
  if (missing.length > 0) {
    const found = await db.$queryRaw<Array<EndpointSecrets & { id: string }>>`
      SELECT id, secrets_version, secret, previous_secret, signing_key, previous_signing_key
        FROM webhook_endpoint_secrets(${missing}::text[])`
    if (known.size + found.length > KEPT_ENDPOINTS) known.clear()
    for (const { id, ...secrets } of found) known.set(id, secrets)
  }
  return rows.flatMap((row) => {
    const secrets = current(row)
    return secrets ? [{ ...row, ...secrets }] : []
  })
}
