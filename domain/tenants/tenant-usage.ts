/**
 * @module What each tenant holds of what its quotas bound (docs/rate-limits.md, "Quotas"), for the operator's
 * per-tenant gauges (infra/metrics/tenant-usage-gauges.ts): one grouped statement per read, never per request. The
 * API's root client reads past row-level security, as the other platform gauges do. Only tenants that hold something
 * are listed.
 */
import type { Db } from '../../infra/db.ts'
import type { TenantUsage } from '../../infra/metrics/tenant-usage-gauges.ts'
import { COUNTED_RUN } from '../ai/agents/agent-quotas.ts'

interface UsageRow {
  tenant_id: string
  knowledge_bytes: number
  knowledge_chunks: number
  knowledge_documents: number
  agent_workflows_enabled: number
  agent_runs_last_hour: number
  api_keys_active: number
}

/**
 * Reads every tenant's usage. The runs of the last hour are counted tenant by tenant through the index on
 * `(tenant_id, created_at)`, so the growing run history is never scanned; the other tables hold what the quotas
 * bound, and are read whole.
 */
export async function readTenantUsage(db: Db): Promise<TenantUsage[]> {
  const rows = await db.$queryRaw<UsageRow[]>`
    SELECT tenant_id,
      sum(knowledge_bytes)::float8 AS knowledge_bytes, sum(knowledge_chunks)::float8 AS knowledge_chunks,
      sum(knowledge_documents)::float8 AS knowledge_documents,
      sum(agent_workflows_enabled)::float8 AS agent_workflows_enabled,
      sum(agent_runs_last_hour)::float8 AS agent_runs_last_hour, sum(api_keys_active)::float8 AS api_keys_active
    FROM (
      SELECT tenant_id, sum(size_bytes)::bigint AS knowledge_bytes, sum(chunk_count)::bigint AS knowledge_chunks,
        count(*) AS knowledge_documents, 0::bigint AS agent_workflows_enabled, 0::bigint AS agent_runs_last_hour,
        0::bigint AS api_keys_active
      FROM knowledge_documents GROUP BY tenant_id
      UNION ALL
      SELECT tenant_id, 0, 0, 0, count(*), 0, 0 FROM agent_workflows
      WHERE enabled AND deleted_at IS NULL GROUP BY tenant_id
      UNION ALL
      SELECT t.id, 0, 0, 0, 0, runs.n, 0 FROM tenants t
      CROSS JOIN LATERAL (SELECT count(*) AS n FROM agent_runs r WHERE r.tenant_id = t.id AND ${COUNTED_RUN}) runs
      WHERE runs.n > 0
      UNION ALL
      SELECT tenant_id, 0, 0, 0, 0, 0, count(*) FROM api_keys
      WHERE revoked_at IS NULL AND (expires_at IS NULL OR expires_at > now()) GROUP BY tenant_id
    ) usage
    GROUP BY tenant_id`
  return rows.map((row) => ({
    tenantId: row.tenant_id,
    knowledgeBytes: row.knowledge_bytes,
    knowledgeChunks: row.knowledge_chunks,
    knowledgeDocuments: row.knowledge_documents,
    agentWorkflowsEnabled: row.agent_workflows_enabled,
    agentRunsLastHour: row.agent_runs_last_hour,
    apiKeysActive: row.api_keys_active,
  }))
}
