/**
 * Per-tenant quotas (issue 54; security review finding 7; docs/rate-limits.md, "Quotas") through the real API,
 * worker and database, with tiny limits: each quota refuses with its problem (409 `quota_exceeded`, a detail naming
 * the limit and its variable) or, for the chunks and the hourly runs, records why nothing was stored or started;
 * another tenant is never affected; and the API's /metrics shows each tenant's figures beside the limits.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { ProvisionedClient } from '../../domain/tenants/provision-client.ts'
import type { HttpResponse } from '../support/http.ts'
import { sendForm, settled, textFile, upload } from '../support/knowledge-http.ts'
import { eventually, startPlatform, type Platform } from '../support/platform.ts'

let platform: Platform

const SCOPES = ['api_keys', 'ai', 'ai.read', 'agents', 'agents.read', 'children', 'clients']

beforeAll(async () => {
  platform = await startPlatform({
    overrides: {
      API_KEYS_PER_TENANT: '2',
      AGENT_WORKFLOWS_PER_TENANT: '1',
      AGENT_RUNS_PER_TENANT_PER_HOUR: '2',
      KNOWLEDGE_BYTES_PER_TENANT: '4000',
      KNOWLEDGE_DOCUMENTS_PER_ASSISTANT: '2',
      KNOWLEDGE_CHUNKS_PER_TENANT: '4',
      AI_VECTOR_STORE: 'postgres',
    },
  })
}, 60_000)

afterAll(async () => {
  // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- unset when beforeAll failed before assigning it
  await platform?.stop()
})

/** A new tenant and a token of its client. */
async function tenant(): Promise<{ client: ProvisionedClient; token: string }> {
  const client = await platform.newTenant(SCOPES)
  return { client, token: await platform.token(client) }
}

const post = (token: string, path: string, body: unknown) => platform.http.post(path, { token, body })

async function created(token: string, path: string, body: unknown): Promise<string> {
  const response = await post(token, path, body)
  if (response.status !== 201) throw new Error(`${path}: ${response.status} ${JSON.stringify(response.body)}`)
  return response.body.id as string
}

/** The problem of a refused quota: 409 `quota_exceeded`, with the limit and its variable in the detail. */
function expectQuotaProblem(response: HttpResponse, limit: number, variable: string) {
  expect(response.status, JSON.stringify(response.body)).toBe(409)
  expect(response.headers.get('content-type')).toContain('application/problem+json')
  expect(response.body).toMatchObject({ status: 409, code: 'quota_exceeded', title: 'Quota exceeded' })
  expect(response.body.type).toMatch(/\/errors\/quota_exceeded$/)
  expect(response.body.detail).toContain(variable)
  expect(response.body.detail).toMatch(new RegExp(`\\b${limit}\\b`))
}

const createKey = (token: string) =>
  post(token, '/v1/api-keys', { name: 'Kiosk', permissions: [{ resource: 'children', methods: ['GET'] }] })

const assistant = (token: string, tools: string[]) =>
  created(token, '/v1/assistants', { name: 'Helper', scope: 'tenant', tools })

const workflowBody = (assistantId: string, enabled = true) => ({
  name: 'Welcome follow-up',
  enabled,
  trigger: { type: 'event', eventTypes: ['child.registered'] },
  agent: { assistantId, instructions: 'Ask the front desk to call the family.', tools: [] },
  actions: [{ type: 'create_staff_task', title: 'Call the family' }],
})

/** Registers a child with one parent: records `child.registered`. */
async function registerChild(token: string): Promise<void> {
  const clientId = await created(token, '/v1/clients', { firstName: 'Ada', lastName: 'Okafor' })
  await created(token, '/v1/children', {
    firstName: 'Maya',
    lastName: 'Okafor',
    dateOfBirth: '2023-04-18',
    clients: [{ clientId, relationship: 'MOTHER' }],
  })
}

/** A Markdown file of `sections` short sections: one chunk each. */
const sectioned = (name: string, sections: number) =>
  textFile(
    name,
    Array.from(
      { length: sections },
      (_, i) => `# Policy ${i + 1}\n\nFamilies call the front desk about item ${i + 1}.\n`
    ).join('\n')
  )

const filler = (name: string, bytes: number) => textFile(name, 'a'.repeat(bytes), 'text/plain')

describe('API keys per tenant (API_KEYS_PER_TENANT)', () => {
  it('refuses a key beyond the quota, makes room on revocation, and leaves another tenant alone', async () => {
    const { token } = await tenant()
    const first = await createKey(token)
    expect(first.status).toBe(201)
    expect((await createKey(token)).status).toBe(201)
    expectQuotaProblem(await createKey(token), 2, 'API_KEYS_PER_TENANT')

    const other = await tenant()
    expect((await createKey(other.token)).status).toBe(201)

    expect((await platform.http.request('DELETE', `/v1/api-keys/${first.body.id}`, { token })).status).toBe(200)
    expect((await createKey(token)).status).toBe(201)
  })
})

describe('enabled agent workflows per tenant (AGENT_WORKFLOWS_PER_TENANT)', () => {
  it('refuses one more enabled workflow at creation and at enabling; a disabled one and another tenant pass', async () => {
    const { token } = await tenant()
    const assistantId = await assistant(token, ['child_records'])
    await created(token, '/v1/agent-workflows', workflowBody(assistantId))
    expectQuotaProblem(
      await post(token, '/v1/agent-workflows', workflowBody(assistantId)),
      1,
      'AGENT_WORKFLOWS_PER_TENANT'
    )

    const disabled = await created(token, '/v1/agent-workflows', workflowBody(assistantId, false))
    const enable = await platform.http.request('PATCH', `/v1/agent-workflows/${disabled}`, {
      token,
      body: { enabled: true },
      headers: { 'Content-Type': 'application/merge-patch+json' },
    })
    expectQuotaProblem(enable, 1, 'AGENT_WORKFLOWS_PER_TENANT')

    const other = await tenant()
    await created(other.token, '/v1/agent-workflows', workflowBody(await assistant(other.token, ['child_records'])))
  })
})

describe('agent runs per tenant per hour (AGENT_RUNS_PER_TENANT_PER_HOUR)', () => {
  it('does not start a run beyond the quota: it is recorded skipped with the reason; another tenant runs', async () => {
    const { token } = await tenant()
    const workflowId = await created(
      token,
      '/v1/agent-workflows',
      workflowBody(await assistant(token, ['child_records']))
    )
    const other = await tenant()
    const otherWorkflowId = await created(
      other.token,
      '/v1/agent-workflows',
      workflowBody(await assistant(other.token, ['child_records']))
    )
    for (let i = 0; i < 3; i++) await registerChild(token)
    await registerChild(other.token)

    const runsOf = (as: string, id: string) =>
      eventually(async () => {
        const response = await platform.http.get(`/v1/agent-workflows/${id}/runs`, { token: as })
        const runs = response.body.data as Array<{ id: string; status: string; error: string | null }>
        return runs.length >= (id === workflowId ? 3 : 1) ? runs : undefined
      }, 20_000)
    const runs = await runsOf(token, workflowId)
    const skipped = runs.filter((run) => run.error?.includes('AGENT_RUNS_PER_TENANT_PER_HOUR'))
    expect(skipped).toHaveLength(1)
    expect(skipped[0]).toMatchObject({ status: 'FAILED' })
    expect(skipped[0]!.error).toMatch(/\b2\b/)
    const detail = await platform.http.get(`/v1/agent-runs/${skipped[0]!.id}`, { token })
    expect(detail.body.startedAt).toBeNull()
    expect(detail.body.steps).toEqual([
      expect.objectContaining({ kind: 'PLAN', name: 'quota', status: 'SKIPPED', reason: skipped[0]!.error }),
    ])

    const otherRuns = await runsOf(other.token, otherWorkflowId)
    expect(otherRuns.filter((run) => run.error?.includes('AGENT_RUNS_PER_TENANT_PER_HOUR'))).toEqual([])
  })
})

describe('knowledge per tenant', () => {
  it('refuses an upload beyond KNOWLEDGE_BYTES_PER_TENANT, and a replacement that grows beyond it', async () => {
    const { token } = await tenant()
    const assistantId = await assistant(token, ['knowledge'])
    const [kept] = await upload(platform, token, assistantId, [filler('handbook.txt', 3000)])
    const refused = await sendForm(platform, 'POST', '/v1/knowledge/documents', {
      token,
      fields: { assistantId },
      files: [filler('more.txt', 1500)],
    })
    expectQuotaProblem(refused, 4000, 'KNOWLEDGE_BYTES_PER_TENANT')
    const grown = await sendForm(platform, 'PUT', `/v1/knowledge/documents/${kept!.id}`, {
      token,
      files: [filler('handbook.txt', 4500)],
      fileField: 'file',
    })
    expectQuotaProblem(grown, 4000, 'KNOWLEDGE_BYTES_PER_TENANT')

    const other = await tenant()
    await upload(platform, other.token, await assistant(other.token, ['knowledge']), [filler('handbook.txt', 3000)])
  })

  it('refuses a document beyond KNOWLEDGE_DOCUMENTS_PER_ASSISTANT; another assistant has its own', async () => {
    const { token } = await tenant()
    const assistantId = await assistant(token, ['knowledge'])
    await upload(platform, token, assistantId, [filler('a.txt', 10), filler('b.txt', 10)])
    const refused = await sendForm(platform, 'POST', '/v1/knowledge/documents', {
      token,
      fields: { assistantId },
      files: [filler('c.txt', 10)],
    })
    expectQuotaProblem(refused, 2, 'KNOWLEDGE_DOCUMENTS_PER_ASSISTANT')
    await upload(platform, token, await assistant(token, ['knowledge']), [filler('c.txt', 10)])
  })

  it('ends a document FAILED, naming KNOWLEDGE_CHUNKS_PER_TENANT, when its chunks would exceed it; another tenant indexes', async () => {
    const { token } = await tenant()
    const assistantId = await assistant(token, ['knowledge'])
    const [first] = await upload(platform, token, assistantId, [sectioned('intake.md', 3)])
    expect(await settled(platform, token, first!.id, 1, 20_000)).toMatchObject({ status: 'READY', chunkCount: 3 })
    const [second] = await upload(platform, token, assistantId, [sectioned('billing.md', 2)])
    const failed = await settled(platform, token, second!.id, 1, 20_000)
    expect(failed).toMatchObject({ status: 'FAILED', chunkCount: 0 })
    expect(failed.failureReason).toContain('KNOWLEDGE_CHUNKS_PER_TENANT')
    expect(failed.failureReason).toMatch(/\b4\b/)

    // Three chunks of another tenant's fit beside this tenant's three.
    const other = await tenant()
    const [theirs] = await upload(platform, other.token, await assistant(other.token, ['knowledge']), [
      sectioned('intake.md', 3),
    ])
    expect(await settled(platform, other.token, theirs!.id, 1, 20_000)).toMatchObject({ status: 'READY' })
  })
})

/** The API's /metrics: the tenant usage and limit samples, with their labels. */
async function scrape(): Promise<Array<{ name: string; labels: Record<string, string>; value: number }>> {
  const text = await (await fetch(platform.api.metricsUrl!)).text()
  return [...text.matchAll(/^(therapy_tenant_\w+)\{([^}]*)\} (\S+)$/gm)].map((m) => ({
    name: m[1]!,
    labels: Object.fromEntries([...m[2]!.matchAll(/(\w+)="([^"]*)"/g)].map((l) => [l[1]!, l[2]!])),
    value: Number(m[3]),
  }))
}

describe('per-tenant usage metrics', () => {
  it('show each tenant what it holds and used in the last hour, beside the configured limits', async () => {
    const { client, token } = await tenant()
    const other = await tenant()
    await createKey(token)
    await createKey(other.token)
    await createKey(other.token)
    const knowledge = await assistant(token, ['knowledge'])
    const [doc] = await upload(platform, token, knowledge, [sectioned('intake.md', 2)])
    expect(await settled(platform, token, doc!.id, 1, 20_000)).toMatchObject({ status: 'READY', chunkCount: 2 })
    const bytes = sectioned('intake.md', 2).bytes.byteLength
    await created(token, '/v1/agent-workflows', workflowBody(await assistant(token, ['child_records'])))
    await registerChild(token)

    const of = (samples: Awaited<ReturnType<typeof scrape>>, name: string, tenantId: string) =>
      samples.find((s) => s.name === name && s.labels.tenant === tenantId)?.value
    const samples = await eventually(async () => {
      const all = await scrape()
      return of(all, 'therapy_tenant_agent_runs_last_hour', client.tenantId) === 1 ? all : undefined
    }, 20_000)
    expect(of(samples, 'therapy_tenant_api_keys_active', client.tenantId)).toBe(1)
    expect(of(samples, 'therapy_tenant_api_keys_active', other.client.tenantId)).toBe(2)
    expect(of(samples, 'therapy_tenant_knowledge_bytes', client.tenantId)).toBe(bytes)
    expect(of(samples, 'therapy_tenant_knowledge_chunks', client.tenantId)).toBe(2)
    expect(of(samples, 'therapy_tenant_knowledge_documents', client.tenantId)).toBe(1)
    expect(of(samples, 'therapy_tenant_agent_workflows_enabled', client.tenantId)).toBe(1)
    expect(of(samples, 'therapy_tenant_knowledge_bytes', other.client.tenantId)).toBe(0)
    expect(
      samples.find((s) => s.name === 'therapy_tenant_quota_limit' && s.labels.quota === 'api_keys_active')
    ).toMatchObject({ value: 2 })
  })
})
