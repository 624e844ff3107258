/**
 * GET /v1/ai/analytics over HTTP on the real stack (PostgreSQL, Temporal, the worker indexing uploads), on known data:
 * tenant A asks six questions (three answered with citations, three the knowledge does not cover) through two
 * assistants, one of them scoped to a location; a Markdown file indexes to READY and a corrupt PDF to FAILED; known
 * workflow executions (agent runs, a care workflow, a kind outside the catalogue) are started with A's TenantId, one
 * of them terminated. The report counts exactly those; tenant B's queries and runs are never counted in A's, and A's
 * never in B's. Narrowing to a location, 404 for another tenant's location, 400 for a bad range, 403 without ai.read.
 */
import { randomUUID } from 'node:crypto'
import { TypedSearchAttributes } from '@temporalio/common'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { ProvisionedClient } from '../../domain/tenants/provision-client.ts'
import { searchAttributeKeys } from '../../common/search-attributes-contract.ts'
import { ask, settled, textFile, upload } from '../support/knowledge-http.ts'
import { eventually, startPlatform, type Platform } from '../support/platform.ts'

let platform: Platform
let a: ProvisionedClient
let b: ProvisionedClient
let tokenA: string
let tokenB: string
const known = { tenantAssistant: '', locationAssistant: '', citations: 0 }
const today = new Date().toISOString().slice(0, 10)
const tomorrow = new Date(Date.now() + 86_400_000).toISOString().slice(0, 10)
const range = `from=${today}&to=${tomorrow}&timeZone=UTC`

const SCHEDULE = `# Weekly schedule

## Social skills group
The social skills group meets every Tuesday at 4 pm in the blue room.

## Feeding clinic
The feeding clinic runs on Thursday mornings from 9 am to noon.
`

/** A workflow execution that no worker runs: it stays RUNNING until terminated, with exactly the attributes given. */
async function startKnown(tenantId: string, kind: string, locationId?: string) {
  return platform.temporal.workflow.start('aiAnalyticsProbe', {
    taskQueue: `ai-analytics-probe-${randomUUID()}`,
    workflowId: `ai-analytics-probe-${randomUUID()}`,
    typedSearchAttributes: new TypedSearchAttributes([
      { key: searchAttributeKeys.TenantId, value: tenantId },
      { key: searchAttributeKeys.WorkflowKind, value: kind },
      ...(locationId ? [{ key: searchAttributeKeys.LocationId, value: locationId }] : []),
    ]),
  })
}

const analytics = (query: string, token = tokenA) => platform.http.get(`/v1/ai/analytics?${query}`, { token })

beforeAll(async () => {
  platform = await startPlatform()
  a = await platform.newTenant(['ai', 'ai.read'])
  b = await platform.newTenant(['ai', 'ai.read'])
  tokenA = await platform.token(a)
  tokenB = await platform.token(b)
  const assistant = async (token: string, scope: string) => {
    const res = await platform.http.post('/v1/assistants', { token, body: { name: `Helper ${scope}`, scope } })
    expect(res.status).toBe(201)
    return res.body.id as string
  }
  known.tenantAssistant = await assistant(tokenA, 'tenant')
  known.locationAssistant = await assistant(tokenA, `location:${a.locationId}`)
  const bAssistant = await assistant(tokenB, 'tenant')

  const docs = await upload(platform, tokenA, known.tenantAssistant, [
    textFile('weekly-schedule.md', SCHEDULE),
    {
      name: 'broken.pdf',
      type: 'application/pdf',
      bytes: new TextEncoder().encode('%PDF-1.4\n1 0 obj garbage\n%%EOF'),
    },
  ])
  const states = await Promise.all(docs.map((d) => settled(platform, tokenA, d.id)))
  expect(states.map((d) => d.status).sort()).toEqual(['FAILED', 'READY'])

  for (const question of [
    'When does the social skills group meet?',
    'When does the feeding clinic run?',
    'Which room is the social skills group in?',
  ]) {
    const answer = await ask(platform, tokenA, known.tenantAssistant, question)
    expect(answer.answered, question).toBe(true)
    known.citations += answer.citations.length
  }
  for (const question of ['Do you offer hydrotherapy?', 'What is the parking fee?']) {
    expect((await ask(platform, tokenA, known.tenantAssistant, question)).answered).toBe(false)
  }
  expect((await ask(platform, tokenA, known.locationAssistant, 'Is there a sibling discount?')).answered).toBe(false)
  // Tenant B's queries: never A's figures.
  for (const question of ['Do you offer hydrotherapy?', 'Is there a waiting list?'])
    await ask(platform, tokenB, bAssistant, question)

  const run1 = await startKnown(a.tenantId, 'agent-run')
  await startKnown(a.tenantId, 'agent-run')
  await startKnown(a.tenantId, 'agent-run', a.locationId)
  await startKnown(a.tenantId, 'child-progress')
  await startKnown(a.tenantId, 'not-catalogued')
  await run1.terminate('known outcome for the analytics test')
  await startKnown(b.tenantId, 'agent-run')
}, 180_000)

afterAll(async () => {
  // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- unset when beforeAll failed before assigning it
  await platform?.stop()
})

describe('GET /v1/ai/analytics', () => {
  it('reports usage, coverage and workflow outcomes of exactly the known data', async () => {
    // Visibility is eventually consistent: wait until every known run (5 probes + 2 indexing runs) is counted.
    let lastSeen: unknown
    const res = await eventually(async () => {
      const r = await analytics(range)
      lastSeen = r.body.workflows
      const agent = r.body.workflows?.byKind.find((k: { kind: string }) => k.kind === 'agent-run')
      return r.status === 200 && r.body.workflows.total.total >= 7 && agent.byStatus.TERMINATED === 1 ? r : undefined
    }, 30_000).catch((err: Error) => {
      throw new Error(`${err.message}; last workflows: ${JSON.stringify(lastSeen)}`)
    })
    expect(res.body.workflows.total.total, JSON.stringify(res.body.workflows)).toBe(7)
    const body = res.body
    expect(body.range).toMatchObject({ from: today, to: tomorrow, timeZone: 'UTC' })
    expect(body.usage).toMatchObject({ queries: 6, assistants: 2, assistantsActive: 2 })
    expect(body.usage.byAssistant).toEqual([
      { assistantId: known.tenantAssistant, name: 'Helper tenant', queries: 5, answered: 3, abstained: 2 },
      {
        assistantId: known.locationAssistant,
        name: `Helper location:${a.locationId}`,
        queries: 1,
        answered: 0,
        abstained: 1,
      },
    ])
    expect(body.usage.byDay).toEqual([
      { date: today, queries: 6, answered: 3, abstained: 3 },
      { date: tomorrow, queries: 0, answered: 0, abstained: 0 },
    ])
    expect(known.citations).toBeGreaterThanOrEqual(3)
    expect(body.coverage).toMatchObject({
      answered: 3,
      abstained: 3,
      answeredShare: 0.5,
      abstainedShare: 0.5,
      citations: known.citations,
      citationsPerAnswer: Math.round((known.citations / 3) * 10_000) / 10_000,
    })
    expect(body.coverage.latencyMs.median).toBeGreaterThanOrEqual(0)
    expect(body.knowledge).toMatchObject({
      documents: { total: 2, byStatus: { PROCESSING: 0, READY: 1, FAILED: 1 } },
      indexedInRange: 1,
      failedInRange: 1,
    })
    expect(body.knowledge.chunks).toBeGreaterThan(0)

    const kind = (k: string) => body.workflows.byKind.find((x: { kind: string }) => x.kind === k)
    expect(kind('agent-run')).toMatchObject({
      category: 'AGENT',
      total: 3,
      byStatus: { RUNNING: 2, TERMINATED: 1, COMPLETED: 0 },
    })
    expect(kind('child-progress')).toMatchObject({ category: 'CARE', total: 1, byStatus: { RUNNING: 1 } })
    expect(kind('knowledge_indexing').total).toBe(2)
    expect(kind('booking').total).toBe(0)
    expect(body.workflows.otherKinds).toMatchObject({ total: 1, byStatus: { RUNNING: 1 } })
    const sum =
      body.workflows.byKind.reduce((n: number, k: { total: number }) => n + k.total, 0) +
      body.workflows.otherKinds.total
    expect(sum).toBe(body.workflows.total.total)
    expect(body.definitions['coverage.answeredShare']).toMatch(/answered \/ queries/)
  })

  it("never counts another tenant's queries or workflows", async () => {
    const res = await eventually(async () => {
      const r = await analytics(range, tokenB)
      return r.status === 200 && r.body.workflows.total.total === 1 ? r : undefined
    }, 30_000)
    expect(res.body.usage).toMatchObject({ queries: 2, assistants: 1 })
    expect(res.body.coverage).toMatchObject({ answered: 0, abstained: 2 })
    expect(res.body.knowledge.documents.total).toBe(0)
    expect(res.body.workflows.byKind.find((k: { kind: string }) => k.kind === 'agent-run').total).toBe(1)
  })

  it("narrows to a location: its assistants' queries and the runs carrying its LocationId", async () => {
    const res = await analytics(`${range}&locationId=${a.locationId}`)
    expect(res.status).toBe(200)
    expect(res.body.locationId).toBe(a.locationId)
    expect(res.body.usage).toMatchObject({ queries: 1, assistants: 1 })
    expect(res.body.coverage).toMatchObject({ answered: 0, abstained: 1, abstainedShare: 1 })
    expect(res.body.knowledge.documents.total).toBe(0)
    expect(res.body.workflows.total.total).toBe(1)
    expect(res.body.workflows.byKind.find((k: { kind: string }) => k.kind === 'agent-run').total).toBe(1)
  })

  it('counts nothing outside the range', async () => {
    const res = await analytics('from=2020-01-01&to=2020-01-31')
    expect(res.status).toBe(200)
    expect(res.body.usage.queries).toBe(0)
    expect(res.body.coverage.answeredShare).toBeNull()
    expect(res.body.workflows.total.total).toBe(0)
  })

  it("400 for a bad range, 404 for another tenant's location, 403 without ai.read", async () => {
    const bad = await analytics(`from=${tomorrow}&to=${today}`)
    expect(bad.status).toBe(400)
    expect(bad.body.errors[0]).toMatchObject({ path: 'to', code: 'before_start' })
    const missing = await analytics(`${range}&locationId=${b.locationId}`)
    expect(missing.status).toBe(404)
    expect(missing.body.code).toBe('not_found')
    const noScope = await platform.newTenant(['children'])
    const denied = await analytics(range, await platform.token(noScope))
    expect(denied.status).toBe(403)
    expect(denied.body.code).toBe('insufficient_scope')
  })
})
