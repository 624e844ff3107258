/**
 * Which methods a path is served with, read from a route table as Hono keeps it (api/middleware/allowed-methods.ts):
 * the 405's `Allow` header. Middleware (`ALL`) serves nothing by itself; HEAD comes with GET.
 */
import { describe, expect, it } from 'vitest'
import { allowedMethods } from '../../../../api/middleware/allowed-methods.ts'

const table = [
  { method: 'ALL', path: '*' },
  { method: 'ALL', path: '/:version{v[01]}/*' },
  { method: 'GET', path: '/health' },
  { method: 'POST', path: '/oauth/token' },
  { method: 'POST', path: '/v1/children' },
  { method: 'GET', path: '/v1/children' },
  { method: 'GET', path: '/v1/children/:id' },
  { method: 'PATCH', path: '/v1/children/:id' },
  { method: 'DELETE', path: '/v1/children/:id' },
  { method: 'POST', path: '/v1/children/:id/progress' },
  { method: 'GET', path: '/docs/assets/:file' },
]

describe('allowedMethods', () => {
  const allowed = allowedMethods(() => table)

  it('lists the methods of the routes that match the path, HEAD beside GET', () => {
    expect(allowed('/v1/children')).toEqual(['GET', 'POST', 'HEAD'])
    expect(allowed('/v1/children/chd_1')).toEqual(['DELETE', 'GET', 'PATCH', 'HEAD'])
    expect(allowed('/v1/children/chd_1/progress')).toEqual(['POST'])
    expect(allowed('/oauth/token')).toEqual(['POST'])
    expect(allowed('/docs/assets/constructor')).toEqual(['GET', 'HEAD'])
  })

  it('finds nothing for a path only middleware matches', () => {
    expect(allowed('/v1/nothing-here')).toEqual([])
    expect(allowed('/no-such-thing')).toEqual([])
    expect(allowed('/v1/children/chd_1/progress/extra')).toEqual([])
  })

  it('reads the table once, on first use', () => {
    let reads = 0
    const counted = allowedMethods(() => {
      reads++
      return table
    })
    expect(reads).toBe(0)
    counted('/health')
    counted('/oauth/token')
    expect(reads).toBe(1)
  })
})
