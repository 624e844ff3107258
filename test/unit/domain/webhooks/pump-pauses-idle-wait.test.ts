import { describe, expect, it } from 'vitest'
import { idleWait } from '../../../../domain/webhooks/pump-pauses.ts'
import { webhookSettings } from '../../../../domain/webhooks/webhook-settings.ts'
import { loadConfig } from '../../../../infra/config.ts'

describe('an idle delivery pump', () => {
  it('waits twice as long after each look that found nothing, up to the idle poll', () => {
    expect([0, 1, 2, 3, 4, 5, 60].map((looks) => idleWait(looks, 100, 800))).toEqual([
      100, 200, 400, 800, 800, 800, 800,
    ])
  })

  it('polls at 100 ms and backs off to 800 ms by default, never below the poll', () => {
    const env = { NODE_ENV: 'test', DATABASE_URL: 'postgresql://u:p@127.0.0.1/db' }
    expect(webhookSettings(loadConfig(env)).pump).toMatchObject({ pollMs: 100, idlePollMs: 800 })
    const slow = loadConfig({ ...env, WEBHOOK_PUMP_POLL_MS: '2000', WEBHOOK_PUMP_IDLE_POLL_MS: '800' })
    expect(webhookSettings(slow).pump).toMatchObject({ pollMs: 2000, idlePollMs: 2000 })
  })
})
