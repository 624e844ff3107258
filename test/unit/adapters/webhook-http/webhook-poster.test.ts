/**
 * One HTTP attempt against real loopback servers: statuses, the deadline, redirects, Retry-After, and the network
 * policy enforced at connect time (a refused address is never connected to).
 */
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createWebhookPoster } from '../../../../adapters/webhook-http/webhook-poster.ts'

let server: Server
let base: string
const hits: string[] = []

beforeAll(async () => {
  server = createServer((request, response) => {
    hits.push(request.url ?? '')
    request.resume()
    request.on('end', () => {
      if (request.url === '/ok') response.writeHead(204).end()
      else if (request.url === '/redirect') response.writeHead(302, { Location: '/ok' }).end()
      else if (request.url === '/busy') response.writeHead(429, { 'Retry-After': '7' }).end()
      else if (request.url === '/gone') response.writeHead(410).end()
      // '/hang': never answers
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
})

afterAll(async () => {
  server.closeAllConnections()
  await new Promise((resolve) => server.close(resolve))
})

const lenient = createWebhookPoster({ timeoutMs: 300, network: { allowPrivateNetworks: true } })
const strict = createWebhookPoster({ timeoutMs: 300, network: { allowPrivateNetworks: false } })

describe('createWebhookPoster', () => {
  it('reports the status and latency of an answer', async () => {
    const result = await lenient.post(`${base}/ok`, { 'X-Test': '1' }, '{}')
    expect(result.statusCode).toBe(204)
    expect(result.error).toBeUndefined()
    expect(result.latencyMs).toBeGreaterThanOrEqual(0)
  })

  it('does not follow redirects', async () => {
    const before = hits.filter((h) => h === '/ok').length
    const result = await lenient.post(`${base}/redirect`, {}, '{}')
    expect(result).toMatchObject({ statusCode: 302, error: 'redirect not followed' })
    expect(hits.filter((h) => h === '/ok').length).toBe(before)
  })

  it('reads Retry-After of a 429', async () => {
    expect(await lenient.post(`${base}/busy`, {}, '{}')).toMatchObject({ statusCode: 429, retryAfterMs: 7000 })
  })

  it('gives up at the deadline when the receiver never answers', async () => {
    const started = Date.now()
    const result = await lenient.post(`${base}/hang`, {}, '{}')
    expect(result.statusCode).toBeUndefined()
    expect(result.error).toBe('no response within 300 ms')
    expect(Date.now() - started).toBeLessThan(2000)
  })

  it('refuses loopback under the strict policy without connecting, by IP literal and by name', async () => {
    const before = hits.length
    const literal = await strict.post(`${base}/ok`, {}, '{}')
    expect(literal.statusCode).toBeUndefined()
    expect(literal.error).toMatch(/loopback address/)
    const byName = await strict.post(base.replace('127.0.0.1', 'localhost') + '/ok', {}, '{}')
    expect(byName.error).toMatch(/loopback address/)
    // A literal's verdict is remembered: the second post is refused from it, just the same.
    const again = await strict.post(`${base}/ok`, {}, '{}')
    expect(again.statusCode).toBeUndefined()
    expect(again.error).toBe(literal.error)
    expect(hits.length).toBe(before)
  })

  it('reports a refused connection as an error', async () => {
    const closed = createServer()
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve))
    const port = (closed.address() as AddressInfo).port
    await new Promise((resolve) => closed.close(resolve))
    const result = await lenient.post(`http://127.0.0.1:${port}/`, {}, '{}')
    expect(result.error).toMatch(/ECONNREFUSED/)
  })
})
