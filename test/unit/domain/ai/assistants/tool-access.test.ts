/** The tool gate: the assistant's tools, the caller's scopes (or key permissions), the tenant, and the data scope. */
import { describe, expect, it } from 'vitest'
import { scopeWhere } from '../../../../../domain/ai/assistants/assistant-scope.ts'
import { authorizeToolUse } from '../../../../../domain/ai/assistants/tool-access.ts'
import type { Principal } from '../../../../../domain/auth/principal.ts'

const assistant = { tenantId: 'ten_a', locationId: 'loc_1', tools: ['knowledge', 'bookings', 'providers'] }
const client = (scopes: string[], tenantId = 'ten_a'): Principal => ({
  kind: 'client',
  tenantId,
  clientId: 'cli_1',
  actorId: 'cli_1',
  scopes,
  tokenId: 'jti_1',
})

describe('authorizeToolUse', () => {
  it('allows a tool the assistant has when the caller holds its scope, within the assistant scope', () => {
    expect(authorizeToolUse(assistant, 'bookings', client(['bookings.read']))).toEqual({
      tenantId: 'ten_a',
      locationId: 'loc_1',
    })
    expect(authorizeToolUse(assistant, 'knowledge', client(['ai']))).toEqual({ tenantId: 'ten_a', locationId: 'loc_1' })
  })

  it('refuses a tool the assistant was not given, whatever the caller holds', () => {
    expect(() => authorizeToolUse(assistant, 'child_records', client(['children']))).toThrow(
      expect.objectContaining({ status: 403, code: 'forbidden' })
    )
  })

  it('refuses when the caller lacks the scope: reading needs x.read or x, writing needs x', () => {
    expect(() => authorizeToolUse(assistant, 'bookings', client(['ai']))).toThrow(
      expect.objectContaining({ code: 'insufficient_scope' })
    )
    expect(() => authorizeToolUse(assistant, 'bookings', client(['bookings.read']), 'write')).toThrow(
      expect.objectContaining({ code: 'insufficient_scope' })
    )
    expect(authorizeToolUse(assistant, 'bookings', client(['bookings']), 'write')).toMatchObject({ tenantId: 'ten_a' })
  })

  it('refuses writes through a read-only tool and another tenant’s assistant', () => {
    expect(() => authorizeToolUse(assistant, 'providers', client(['providers']), 'write')).toThrow(
      expect.objectContaining({ code: 'forbidden' })
    )
    expect(() => authorizeToolUse(assistant, 'knowledge', client(['ai'], 'ten_b'))).toThrow(
      expect.objectContaining({ code: 'forbidden' })
    )
  })

  it('checks API keys by resource and method', () => {
    const key: Principal = {
      kind: 'api_key',
      tenantId: 'ten_a',
      keyId: 'ak_1',
      actorId: 'ak_1',
      permissions: [{ resource: 'bookings', methods: ['GET'] }],
      expiresAt: null,
    }
    expect(authorizeToolUse(assistant, 'bookings', key)).toMatchObject({ locationId: 'loc_1' })
    expect(() => authorizeToolUse(assistant, 'bookings', key, 'write')).toThrow(
      expect.objectContaining({ code: 'insufficient_scope' })
    )
  })
})

describe('scopeWhere', () => {
  it('filters by location only for a location-scoped assistant', () => {
    expect(scopeWhere({ tenantId: 'ten_a', locationId: 'loc_1' })).toEqual({ tenantId: 'ten_a', locationId: 'loc_1' })
    expect(scopeWhere({ tenantId: 'ten_a', locationId: null })).toEqual({ tenantId: 'ten_a' })
  })
})
