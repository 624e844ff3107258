/**
 * @module The sealed secrets a claim signs with (issue 76, item 5; docs/security.md, "Least privilege in the
 * database"). The pumps' claims span tenants and run as the system role, which may not select an endpoint's secret
 * columns: right after a claim the pump asks `webhook_endpoint_secrets` for those of the endpoints it claimed, and
 * the function answers only for endpoints with a PENDING delivery under a lease. One more statement per claim (not per
 * delivery), on the endpoints' primary key.
 */
import type { Db } from '../../infra/db.ts'

interface EndpointSecretsRow {
  id: string
  secret: string
  previous_secret: string | null
  signing_key: string | null
  previous_signing_key: string | null
}

/**
 * Claimed rows (each with `endpoint_id`) with their endpoint's sealed secrets under the names a delivery row has. A
 * row whose endpoint the function did not answer for (its delivery ended by another hand between the claim and this
 * read) is left out: its lease lapses and the next claim sees what became of it.
 */
export async function withEndpointSecrets(
  db: Db,
  rows: Array<Record<string, unknown>>
): Promise<Array<Record<string, unknown>>> {
  if (rows.length === 0) return rows
  const endpointIds = [...new Set(rows.map((row) => row.endpoint_id as string))]
  const found = await db.$queryRaw<EndpointSecretsRow[]>`
    SELECT id, secret, previous_secret, signing_key, previous_signing_key
      FROM webhook_endpoint_secrets(${endpointIds}::text[])`
  const byEndpoint = new Map(found.map(({ id, ...secrets }) => [id, secrets]))
  return rows.flatMap((row) => {
    const secrets = byEndpoint.get(row.endpoint_id as string)
    return secrets ? [{ ...row, ...secrets }] : []
  })
}
