/**
 * The agent run activities' action step: the guard rail (an action refused is recorded, never performed), how a
 * webhook receiver's answer is classified (retryable for Temporal, or a recorded failure), and that an action
 * already recorded is not performed again. Webhooks go to a real receiver on 127.0.0.1; the run's steps live in a
 * fake of the step table (fake-unit-of-work.ts). `beginAgentRun` reads its Context, run in MockActivityEnvironment.
 */
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { ApplicationFailure } from '@temporalio/common'
import { MockActivityEnvironment } from '@temporalio/testing'
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest'
import { createAgentRunActivities } from '../../../activities/agent-run-activities.ts'
import type { AgentAction } from '../../../domain/ai/agents/action-catalogue.ts'
import type { AiRuntime } from '../../../domain/ai/ai-runtime.ts'
import { createSecretBox, DEVELOPMENT_KEYRING } from '../../../infra/secret-box.ts'
import { fakeDb } from './fake-unit-of-work.ts'

vi.mock('../../../infra/unit-of-work.ts', () => import('./fake-unit-of-work.ts'))

let server: Server
let base: string
const hits: Array<{ path: string; key: string | undefined }> = []

beforeAll(async () => {
  server = createServer((request, response) => {
    request.resume()
    request.on('end', () => {
      hits.push({ path: request.url ?? '', key: request.headers['idempotency-key'] as string | undefined })
      const status = Number((request.url ?? '/200').slice(1))
      response.writeHead(status).end()
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
})

afterAll(async () => {
  server.closeAllConnections()
  await new Promise((resolve) => server.close(resolve))
})

beforeEach(() => {
  hits.length = 0
})

// The workflow's secret is stored sealed; the action opens it to sign.
const secrets = createSecretBox(DEVELOPMENT_KEYRING)
const RUN = 'arn_1'
const ref = { tenantId: 'ten_1', runId: RUN }

/** A run whose plan, context and agent steps are recorded, with `action` at position 3. */
function runWith(action: AgentAction, options: { assistantTools?: string[]; done?: string } = {}) {
  const steps = new Map<number, Record<string, unknown>>([
    [
      0,
      {
        position: 0,
        status: 'SUCCEEDED',
        output: {
          agentWorkflowId: 'awf_1',
          assistantId: 'ast_1',
          tools: ['bookings'],
          actions: [action],
          creatorScopes: ['bookings', 'webhooks'],
        },
      },
    ],
    [
      1,
      {
        position: 1,
        status: 'SUCCEEDED',
        output: {
          trigger: 'EVENT',
          event: { id: 'evt_1', type: 'appointment.booked' },
          subject: { childId: 'chd_1' },
          inScope: true,
        },
      },
    ],
    [2, { position: 2, status: 'SUCCEEDED', output: { params: { 3: { summary: 'Booked.' } }, ignored: [] } }],
  ])
  if (options.done) steps.set(3, { position: 3, status: options.done, output: {} })
  const at = ({ where }: { where: { runId_position: { runId: string; position: number } } }) =>
    where.runId_position.runId === RUN ? (steps.get(where.runId_position.position) ?? null) : null
  const tx = {
    agentRunStep: {
      findUnique: async (query: Parameters<typeof at>[0]) => at(query),
      async findUniqueOrThrow(query: Parameters<typeof at>[0]) {
        const step = at(query)
        if (!step) throw new Error('no step')
        return step
      },
      async createMany({ data }: { data: Array<Record<string, unknown> & { position: number }> }) {
        for (const step of data) if (!steps.has(step.position)) steps.set(step.position, step)
        return { count: data.length }
      },
    },
    assistant: {
      findFirst: async () => ({ tools: options.assistantTools ?? ['bookings'] }),
    },
    // The secret that signs the workflow's webhook calls (test/unit/domain/ai/agents/agent-action-effects-webhook-signatures.test.ts).
    agentWorkflow: {
      findFirst: async () => ({ webhookSecret: secrets.seal(`whsec_${Buffer.alloc(32, 1).toString('base64')}`) }),
    },
  }
  const activities = createAgentRunActivities({
    db: fakeDb(tx),
    webhooks: {
      requireHttps: false,
      network: { allowPrivateNetworks: true },
      timeoutMs: 500,
      retry: { windowMs: 1, initialIntervalMs: 1, maxIntervalMs: 1 },
      disableAfterMs: 1,
      circuitFailures: 5,
      pump: { partitions: 0, pollMs: 1, concurrency: 1, endpointConcurrency: 1, leaseMs: 2 },
    },
    ai: {} as AiRuntime,
    secrets,
  })
  return { activities, steps }
}

const webhook = (status: number): AgentAction => ({ type: 'call_webhook', url: `${base}/${status}` })

describe('executeAgentAction', () => {
  it('calls the webhook once with the step as idempotency key and records the success', async () => {
    const { activities, steps } = runWith(webhook(200))
    expect(await activities.executeAgentAction({ ...ref, position: 3 })).toEqual({ status: 'SUCCEEDED' })
    expect(hits).toEqual([{ path: '/200', key: `${RUN}:3` }])
    expect(steps.get(3)).toMatchObject({ kind: 'ACTION', status: 'SUCCEEDED', output: { statusCode: 200 } })
  })

  it('throws a retryable RetryableEffect failure for a receiver that may recover (5xx, 429), recording nothing', async () => {
    for (const status of [503, 429]) {
      const { activities, steps } = runWith(webhook(status))
      const error = await activities.executeAgentAction({ ...ref, position: 3 }).catch((e: unknown) => e)
      expect(error).toBeInstanceOf(ApplicationFailure)
      expect(error).toMatchObject({
        type: 'RetryableEffect',
        nonRetryable: false,
        message: `receiver answered ${status}`,
      })
      expect(steps.has(3)).toBe(false)
    }
  })

  it('records a 4xx as the failed step, not to be retried', async () => {
    const { activities, steps } = runWith(webhook(400))
    expect(await activities.executeAgentAction({ ...ref, position: 3 })).toEqual({ status: 'FAILED' })
    expect(steps.get(3)).toMatchObject({ status: 'FAILED', reason: 'The receiver answered 400.' })
  })

  it('refuses an action whose tool the assistant has lost since the workflow was configured, recording why', async () => {
    const { activities, steps } = runWith(
      { type: 'draft_appointment', withinDays: 14, durationMinutes: 45 },
      { assistantTools: [] }
    )
    expect(await activities.executeAgentAction({ ...ref, position: 3 })).toEqual({ status: 'REFUSED' })
    expect(steps.get(3)).toMatchObject({
      status: 'REFUSED',
      output: { code: 'tool_not_allowed', type: 'draft_appointment' },
    })
  })

  it('answers the recorded outcome of an action already performed, without performing it again', async () => {
    const { activities } = runWith(webhook(200), { done: 'SUCCEEDED' })
    expect(await activities.executeAgentAction({ ...ref, position: 3 })).toEqual({ status: 'SUCCEEDED' })
    expect(hits).toEqual([])
  })
})

describe('beginAgentRun', () => {
  it('refuses to run without a workflow id to key the run by, for good', async () => {
    const { activities } = runWith(webhook(200))
    // (MockActivityEnvironment itself cannot run without a workflow execution; an empty id reaches the same check.)
    const quiet = { log() {}, trace() {}, debug() {}, info() {}, warn() {}, error() {} }
    const env = new MockActivityEnvironment(
      { workflowExecution: { workflowId: '', runId: '00000000-0000-0000-0000-000000000000' } },
      { logger: quiet }
    )
    const error = await env
      .run(activities.beginAgentRun, { tenantId: 'ten_1', agentWorkflowId: 'awf_1', trigger: 'SCHEDULE' as const })
      .catch((e: unknown) => e)
    expect(error).toBeInstanceOf(ApplicationFailure)
    expect(error).toMatchObject({ nonRetryable: true, message: 'beginAgentRun runs only inside agentRunWorkflow' })
  })
})
