/**
 * @module What a grantor has granted (GET /v1/credentials): before offboarding an integration or a person, a centre
 * sees everything that acts on their grant and stops with it: the API keys they made and the keys those keys made, the
 * webhook endpoints and agent workflows any of them made or last took over. Each says whether it acts now, by the
 * same checks its use makes (api-key-service.ts `apiKeyWorks`, credential-grants.ts).
 */
import { Prisma } from '../../generated/prisma/client.ts'
import type { UnitOfWork } from '../../infra/unit-of-work.ts'
import { apiKeyWorks } from './api-key-service.ts'
import { grantHoldsSql } from './credential-grants.ts'

/** One credential and whether it acts now. */
export interface GrantedCredential {
  type: 'api_key' | 'webhook_endpoint' | 'agent_workflow'
  id: string
  name: string
  /** Its own grantor: the grantor asked about, or one of the keys granted under it. */
  grantedBy: string
  createdAt: Date
  active: boolean
}

/** Keys under one grantor followed at most this deep, as a key's own check does. */
const MAX_DEPTH = 8
/** Most credentials of each type answered: a grantor with more is told so (`truncated`). */
export const MAX_PER_TYPE = 500

/**
 * The credentials granted by `grantor` (a client, user or API key id, or `operator`) in the unit's tenant, directly or
 * through the keys it made, oldest first by type.
 */
export async function credentialsGrantedBy(
  uow: UnitOfWork,
  grantor: string,
  now: Date
): Promise<{ data: GrantedCredential[]; truncated: boolean }> {
  const { tenantId } = uow
  const keys = await uow.query<{ id: string; name: string; created_by: string; created_at: Date }>(Prisma.sql`
    WITH RECURSIVE granted AS (
      SELECT id, name, created_by, created_at, 1 AS depth FROM api_keys
      WHERE tenant_id = ${tenantId} AND created_by = ${grantor}
      UNION ALL
      SELECT k.id, k.name, k.created_by, k.created_at, g.depth + 1 FROM granted g
      JOIN api_keys k ON k.created_by = g.id AND k.tenant_id = ${tenantId}
      WHERE g.depth < ${MAX_DEPTH}::int)
    SELECT id, name, created_by, created_at FROM granted ORDER BY created_at, id LIMIT ${MAX_PER_TYPE + 1}::int`)
  const grantors = [grantor, ...keys.map((k) => k.id)]
  const held = (scope: 'webhooks' | 'agents') =>
    grantHoldsSql(Prisma.sql`tenant_id`, Prisma.sql`created_by`, now, scope)
  const [endpoints, workflows] = await Promise.all([
    uow.query<{ id: string; name: string; created_by: string; created_at: Date; active: boolean }>(Prisma.sql`
      SELECT id, url AS name, created_by, created_at, enabled AND ${held('webhooks')} AS active
      FROM webhook_endpoints WHERE tenant_id = ${tenantId} AND created_by = ANY (${grantors}::text[])
      ORDER BY created_at, id LIMIT ${MAX_PER_TYPE + 1}::int`),
    uow.query<{ id: string; name: string; created_by: string; created_at: Date; active: boolean }>(Prisma.sql`
      SELECT id, name, created_by, created_at, enabled AND ${held('agents')} AS active
      FROM agent_workflows
      WHERE tenant_id = ${tenantId} AND deleted_at IS NULL AND created_by = ANY (${grantors}::text[])
      ORDER BY created_at, id LIMIT ${MAX_PER_TYPE + 1}::int`),
  ])
  const truncated = [keys, endpoints, workflows].some((rows) => rows.length > MAX_PER_TYPE)
  const keyRows = keys.slice(0, MAX_PER_TYPE)
  const working = await Promise.all(keyRows.map((k) => apiKeyWorks(uow.tx, tenantId, k.id, now)))
  const as = (type: GrantedCredential['type']) => (row: (typeof endpoints)[number]) => ({
    type,
    id: row.id,
    name: row.name,
    grantedBy: row.created_by,
    createdAt: row.created_at,
    active: row.active,
  })
  return {
    data: [
      ...keyRows.map((k, i) => as('api_key')({ ...k, active: working[i]! })),
      ...endpoints.slice(0, MAX_PER_TYPE).map(as('webhook_endpoint')),
      ...workflows.slice(0, MAX_PER_TYPE).map(as('agent_workflow')),
    ],
    truncated,
  }
}
