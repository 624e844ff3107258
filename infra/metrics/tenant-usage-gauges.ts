/**
 * @module Per-tenant usage gauges, so an operator sees who uses what the quotas bound (docs/rate-limits.md,
 * "Quotas"; docs/operations.md, "Metrics"): knowledge bytes, chunks and documents, enabled agent workflows, agent runs
 * of the last hour, active API keys, each labelled by tenant, and the configured limits beside them. Registered by the
 * API only, as the platform gauges are. Every gauge of a scrape shares one read (one grouped statement, given by the
 * caller: domain/tenants/tenant-usage.ts); nothing is counted per request.
 */
import { Gauge } from 'prom-client'
import type { Config } from '../config.ts'
import type { Metrics } from './metrics-registry.ts'

/** One tenant's usage, as the read returns it. */
export interface TenantUsage {
  tenantId: string
  knowledgeBytes: number
  knowledgeChunks: number
  knowledgeDocuments: number
  agentWorkflowsEnabled: number
  agentRunsLastHour: number
  apiKeysActive: number
}

/** The quota settings the limit gauge shows. */
export type QuotaSettings = Pick<
  Config,
  | 'KNOWLEDGE_BYTES_PER_TENANT'
  | 'KNOWLEDGE_CHUNKS_PER_TENANT'
  | 'KNOWLEDGE_DOCUMENTS_PER_ASSISTANT'
  | 'AGENT_WORKFLOWS_PER_TENANT'
  | 'AGENT_RUNS_PER_TENANT_PER_HOUR'
  | 'API_KEYS_PER_TENANT'
>

/** How long one read serves the gauges of a scrape (they are collected together, within milliseconds). */
const SCRAPE_SHARING_MS = 100

const USAGE_GAUGES: ReadonlyArray<{ name: string; help: string; value: (usage: TenantUsage) => number }> = [
  {
    name: 'therapy_tenant_knowledge_bytes',
    help: 'Bytes of the knowledge files a tenant stores (quota: KNOWLEDGE_BYTES_PER_TENANT)',
    value: (u) => u.knowledgeBytes,
  },
  {
    name: 'therapy_tenant_knowledge_chunks',
    help: "Chunks of a tenant's indexed knowledge (quota: KNOWLEDGE_CHUNKS_PER_TENANT)",
    value: (u) => u.knowledgeChunks,
  },
  {
    name: 'therapy_tenant_knowledge_documents',
    help: "Knowledge documents of all a tenant's assistants (quota per assistant: KNOWLEDGE_DOCUMENTS_PER_ASSISTANT)",
    value: (u) => u.knowledgeDocuments,
  },
  {
    name: 'therapy_tenant_agent_workflows_enabled',
    help: 'Enabled agent workflows of a tenant (quota: AGENT_WORKFLOWS_PER_TENANT)',
    value: (u) => u.agentWorkflowsEnabled,
  },
  {
    name: 'therapy_tenant_agent_runs_last_hour',
    help: 'Agent runs of a tenant in the last hour, skipped runs not counted (quota: AGENT_RUNS_PER_TENANT_PER_HOUR)',
    value: (u) => u.agentRunsLastHour,
  },
  {
    name: 'therapy_tenant_api_keys_active',
    help: 'API keys of a tenant neither revoked nor expired (quota: API_KEYS_PER_TENANT)',
    value: (u) => u.apiKeysActive,
  },
]

/**
 * Registers the per-tenant usage gauges and the limit gauge on `metrics`' registry.
 * @param read - every tenant's usage, in one statement
 * @param settings - the configured quotas
 */
export function registerTenantUsageGauges(
  metrics: Metrics,
  read: () => Promise<TenantUsage[]>,
  settings: QuotaSettings
): void {
  const registers = [metrics.registry]
  let reading: { at: number; usage: Promise<TenantUsage[]> } | undefined
  const usage = () => {
    const now = Date.now()
    if (!reading || now - reading.at > SCRAPE_SHARING_MS) reading = { at: now, usage: read() }
    return reading.usage
  }
  for (const { name, help, value } of USAGE_GAUGES) {
    new Gauge({
      name,
      help,
      labelNames: ['tenant'] as const,
      registers,
      async collect() {
        const tenants = await usage()
        // A tenant that holds nothing any more drops out of the read: its series go with it.
        this.reset()
        for (const tenant of tenants) this.set({ tenant: tenant.tenantId }, value(tenant))
      },
    })
  }
  const limits = {
    knowledge_bytes: settings.KNOWLEDGE_BYTES_PER_TENANT,
    knowledge_chunks: settings.KNOWLEDGE_CHUNKS_PER_TENANT,
    knowledge_documents_per_assistant: settings.KNOWLEDGE_DOCUMENTS_PER_ASSISTANT,
    agent_workflows_enabled: settings.AGENT_WORKFLOWS_PER_TENANT,
    agent_runs_per_hour: settings.AGENT_RUNS_PER_TENANT_PER_HOUR,
    api_keys_active: settings.API_KEYS_PER_TENANT,
  }
  new Gauge({
    name: 'therapy_tenant_quota_limit',
    help: "Each tenant's quota as this deployment configures it (docs/rate-limits.md, 'Quotas')",
    labelNames: ['quota'] as const,
    registers,
    collect() {
      for (const [quota, limit] of Object.entries(limits)) this.set({ quota }, limit)
    },
  })
}
