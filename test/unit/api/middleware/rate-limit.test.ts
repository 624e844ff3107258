import { describe, expect, it } from 'vitest'
import type { BearerOutcome } from '../../../../api/middleware/identify-caller.ts'
import { rateLimitHeaders, rateLimitKey } from '../../../../api/middleware/rate-limit.ts'
import { invalidToken, missingToken } from '../../../../domain/errors.ts'

const verified: BearerOutcome = {
  ok: true,
  principal: { kind: 'client', tenantId: 'ten_1', clientId: 'cli_1', actorId: 'cli_1', scopes: [], tokenId: 'jti_1' },
}

describe('rateLimitKey', () => {
  it('counts a verified token against its client, wherever it comes from', () => {
    expect(rateLimitKey(verified, '198.51.100.7')).toBe('client:cli_1')
    expect(rateLimitKey(verified, '203.0.113.9')).toBe('client:cli_1')
  })

  it('counts requests without a valid token against their address', () => {
    expect(rateLimitKey(undefined, '198.51.100.7')).toBe('ip:198.51.100.7')
    expect(rateLimitKey({ ok: false, error: missingToken() }, '198.51.100.7')).toBe('ip:198.51.100.7')
    expect(rateLimitKey({ ok: false, error: invalidToken() }, '2001:db8::/64')).toBe('ip:2001:db8::/64')
  })
})

describe('rateLimitHeaders', () => {
  it('renders the decision as the three headers', () => {
    const headers = rateLimitHeaders({
      allowed: true,
      limit: 600,
      remaining: 599,
      resetAt: 1_767_225_660,
      retryAfterSeconds: 60,
    })
    expect(headers).toEqual({
      'X-RateLimit-Limit': '600',
      'X-RateLimit-Remaining': '599',
      'X-RateLimit-Reset': '1767225660',
    })
  })
})
