import { describe, expect, it } from 'vitest'
import { idFromLocation, resourceOf } from '../../../api/audit-call.ts'

describe('the resource of an audited call', () => {
  it('is the segment before :id and its value in the path', () => {
    expect(resourceOf('/v1/children/:id', '/v1/children/chd_1')).toEqual({ type: 'children', id: 'chd_1' })
    expect(resourceOf('/v1/appointments/:id/cancel', '/v1/appointments/apt_1/cancel')).toEqual({
      type: 'appointments',
      id: 'apt_1',
    })
  })

  it('is the collection for a route without an id, and nothing when no route matched', () => {
    expect(resourceOf('/v1/providers', '/v1/providers')).toEqual({ type: 'providers', id: null })
    const verify = resourceOf('/v1/audit-events/verify', '/v1/audit-events/verify')
    expect(verify).toEqual({ type: 'audit-events', id: null })
    expect(resourceOf('', '/v1/nothing/here')).toEqual({ type: null, id: null })
  })

  it('takes a created id from a Location header into this API only', () => {
    expect(idFromLocation('/v1/children/chd_1')).toBe('chd_1')
    expect(idFromLocation('https://api.example/v1/appointments/apt_2?x=1')).toBe('apt_2')
    expect(idFromLocation('https://elsewhere.example/')).toBeNull()
    expect(idFromLocation(null)).toBeNull()
  })
})
