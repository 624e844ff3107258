/**
 * Agent `call_webhook` requests are signed like webhook deliveries (issue 39): v1 `X-Service-Signature` and v2
 * Standard Webhooks headers, with the agent workflow's secret, so a receiver verifies them with the SDK's verifier it
 * already uses and refuses a forgery. The poster is a fake that keeps what it was asked to send.
 */
import { describe, expect, it } from 'vitest'
import { verifyWebhook, verifyWebhookV1, verifyWebhookV2 } from '../../../../../sdks/typescript/src/index.ts'
import { postWebhookEffect, type EffectInput } from '../../../../../domain/ai/agents/agent-action-effects.ts'
import type { AgentContext } from '../../../../../domain/ai/agents/agent-context.ts'
import type { WebhookPoster } from '../../../../../domain/webhooks/post-webhook.ts'
import { newWebhookSecret } from '../../../../../domain/webhooks/webhook-secrets.ts'

interface Sent {
  url: string
  headers: Record<string, string>
  body: string
}

function recordingPoster(sent: Sent[]): WebhookPoster {
  return {
    post: (url, headers, body) => {
      sent.push({ url, headers, body })
      return Promise.resolve({ statusCode: 204, latencyMs: 1 })
    },
    close: () => undefined,
  }
}

const context: AgentContext = {
  trigger: 'EVENT',
  event: { id: 'evt_1', type: 'child.registered', createdAt: new Date().toISOString(), data: {} },
  subject: { childId: 'chd_1' },
  inScope: true,
  familyClientIds: [],
  facts: [],
  passages: [],
}

const input = (webhookSecret: string): EffectInput => ({
  action: { type: 'call_webhook', name: 'crm', url: 'https://crm.example/hooks' },
  name: 'crm',
  params: { summary: 'Welcome the family.' },
  context,
  agentWorkflowId: 'agw_1',
  runId: 'arn_1',
  key: 'arn_1:3',
  now: new Date(),
  webhookSecret,
})

async function send(secret: string): Promise<Sent> {
  const sent: Sent[] = []
  const outcome = await postWebhookEffect(recordingPoster(sent), input(secret))
  expect(outcome.status).toBe('SUCCEEDED')
  expect(sent).toHaveLength(1)
  return sent[0]!
}

describe('a call_webhook request', () => {
  it("carries v1 and v2 signatures by the agent workflow's secret that the SDK verifies", async () => {
    const secret = newWebhookSecret()
    const { headers, body } = await send(secret)
    expect(headers['webhook-id']).toBe('arn_1:3')
    expect(headers['Idempotency-Key']).toBe('arn_1:3')
    expect(headers['webhook-timestamp']).toMatch(/^\d+$/)
    expect(headers['webhook-signature']).toMatch(/^v1,/)
    expect(headers['X-Service-Signature']).toMatch(/^t=\d+,v1=[0-9a-f]{64}$/)

    const event = await verifyWebhook(body, headers, secret)
    expect(event).toMatchObject({ id: 'arn_1:3', type: 'agent_run.action', data: { runId: 'arn_1', action: 'crm' } })
    await expect(verifyWebhookV2(body, headers, secret)).resolves.toMatchObject({ id: 'arn_1:3' })
    await expect(verifyWebhookV1(body, headers, secret)).resolves.toMatchObject({ id: 'arn_1:3' })
  })

  it('is refused by a receiver holding another secret, or when its body was changed', async () => {
    const { headers, body } = await send(newWebhookSecret())
    await expect(verifyWebhook(body, headers, newWebhookSecret())).rejects.toThrow()
    const secret = newWebhookSecret()
    const genuine = await send(secret)
    await expect(verifyWebhook(genuine.body.replace('arn_1', 'arn_2'), genuine.headers, secret)).rejects.toThrow()
  })
})
