/**
 * The balancer's configuration (scripts/cluster/haproxy-config.ts): which requests HAProxy may send again after an API
 * died under them. The configuration is run by the cluster tests (test/cluster/); here, what it promises.
 */
import { describe, expect, it } from 'vitest'
import { haproxyConfig } from '../../../../scripts/cluster/haproxy-config.ts'

const config = haproxyConfig({ port: 3000, apiPorts: [4101, 4102, 4103], statsPort: 4200 })
const lines = config.split('\n').map((line) => line.trim())

describe('haproxyConfig', () => {
  it('puts every API behind a health check of /health', () => {
    expect(lines.filter((line) => line.startsWith('server ') && line.endsWith(' check'))).toEqual([
      'server api-1 127.0.0.1:4101 check',
      'server api-2 127.0.0.1:4102 check',
      'server api-3 127.0.0.1:4103 check',
    ])
    expect(lines).toContain('option httpchk GET /health')
    expect(lines).toContain('bind :3000')
  })

  it('retries a failed connection anywhere, and a lost answer only where a repeat cannot do a thing twice', () => {
    expect(lines).toContain('retry-on conn-failure empty-response')
    expect(lines).toContain('option redispatch 1')
    // HAProxy's disable-l7-retry leaves connection failures retried: the request never reached an API.
    expect(lines).toContain('http-request disable-l7-retry unless idempotent_method || has_key')
    expect(lines).toContain('acl idempotent_method method GET HEAD OPTIONS PUT DELETE')
    expect(lines).toContain('acl has_key req.hdr(Idempotency-Key) -m found')
    expect(config).not.toMatch(/retry-on[^\n]*(all-retryable-errors|response-timeout|5\d\d)/)
  })

  it('fails open: with every API checked out, requests still go to all of them, unchecked', () => {
    expect(lines.filter((line) => line.endsWith(' backup'))).toEqual([
      'server api-1-open 127.0.0.1:4101 backup',
      'server api-2-open 127.0.0.1:4102 backup',
      'server api-3-open 127.0.0.1:4103 backup',
    ])
    expect(lines).toContain('option allbackups')
    // A slow answer on a saturated machine is not a dead API; a killed one refuses at once (observe layer4).
    expect(lines).toContain('timeout check 3s')
  })

  it('serves its statistics on loopback only', () => {
    expect(lines).toContain('bind 127.0.0.1:4200')
  })
})
