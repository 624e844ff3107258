import { describe, expect, it } from 'vitest'
import { webhookSettings } from '../../../../domain/webhooks/webhook-settings.ts'
import { loadConfig } from '../../../../infra/config.ts'

const env = { NODE_ENV: 'test', DATABASE_URL: 'postgresql://u:p@127.0.0.1/db' }

describe("a delivery pump's slots by default", () => {
  // A round claims at most a tenant's share, and its three statements cost about the same for one row as for sixty:
  // at a share of 16 a centre alone sending 1,000 deliveries a second fell behind (docs/benchmarks.md).
  it('gives a tenant a quarter of 512: 128 a round, sixteen endpoints at their own bound', () => {
    expect(webhookSettings(loadConfig(env)).pump).toMatchObject({
      concurrency: 512,
      tenantConcurrency: 128,
      endpointConcurrency: 8,
    })
  })

  it('keeps the share at a quarter of a pump sized by hand, and an explicit share as given', () => {
    expect(webhookSettings(loadConfig({ ...env, WEBHOOK_PUMP_CONCURRENCY: '40' })).pump.tenantConcurrency).toBe(10)
    const explicit = loadConfig({ ...env, WEBHOOK_PUMP_CONCURRENCY: '40', WEBHOOK_TENANT_CONCURRENCY: '30' })
    expect(webhookSettings(explicit).pump.tenantConcurrency).toBe(30)
  })
})
