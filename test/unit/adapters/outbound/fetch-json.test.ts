/**
 * A GET of a tenant's JSON document against real loopback servers: the answer and its freshness, and every limit —
 * the network policy at connect time (a refused address is never connected to, by literal or by name), redirects not
 * followed, the size cap (declared or streamed), the deadline over the whole exchange, and a body that is not JSON.
 */
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createJsonFetcher, maxAgeOf, OutboundFetchError } from '../../../../adapters/outbound/fetch-json.ts'

let server: Server
let port: number
const hits: string[] = []

beforeAll(async () => {
  server = createServer((request, response) => {
    hits.push(request.url ?? '')
    const json = (body: unknown, headers: Record<string, string> = {}) => {
      response.writeHead(200, { 'Content-Type': 'application/json', ...headers })
      response.end(JSON.stringify(body))
    }
    if (request.url === '/doc') return json({ keys: [] }, { 'Cache-Control': 'public, max-age=120' })
    if (request.url === '/plain') return json({ ok: true })
    if (request.url === '/redirect') return response.writeHead(302, { Location: '/doc' }).end()
    if (request.url === '/missing') return response.writeHead(404).end()
    if (request.url === '/declared-large') {
      response.writeHead(200, { 'Content-Length': String(10_000) })
      return response.end('x'.repeat(10_000))
    }
    if (request.url === '/streamed-large') {
      // No Content-Length: the cap must hold while reading.
      response.writeHead(200, { 'Content-Type': 'application/json' })
      for (let i = 0; i < 20; i++) response.write('x'.repeat(1000))
      return response.end()
    }
    if (request.url === '/trickle') {
      // Headers at once, then a byte now and then: only a deadline over the whole exchange stops it.
      response.writeHead(200, { 'Content-Type': 'application/json' })
      const timer = setInterval(() => response.write(' '), 50)
      return response.on('close', () => clearInterval(timer))
    }
    if (request.url === '/not-json') return response.writeHead(200).end('<html>')
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  port = (server.address() as AddressInfo).port
})

afterAll(async () => {
  server.closeAllConnections()
  await new Promise((resolve) => server.close(resolve))
})

const options = { timeoutMs: 400, maxBytes: 4096, subject: 'SSO requests', userAgent: 'test' }
const lenient = createJsonFetcher({ ...options, network: { allowPrivateNetworks: true } })
const strict = createJsonFetcher({ ...options, network: { allowPrivateNetworks: false } })

const failure = (promise: Promise<unknown>) =>
  promise.then(
    () => {
      throw new Error('expected the fetch to fail')
    },
    (error: unknown) => error as OutboundFetchError
  )

describe('createJsonFetcher', () => {
  it("answers the parsed body and the server's max-age", async () => {
    expect(await lenient(`http://127.0.0.1:${port}/doc`)).toEqual({ body: { keys: [] }, maxAgeMs: 120_000 })
    expect(await lenient(`http://localhost:${port}/plain`)).toEqual({ body: { ok: true } })
  })

  it('never connects to a refused address, given as a literal or as a name', async () => {
    const before = hits.length
    for (const url of [`http://127.0.0.1:${port}/doc`, `http://localhost:${port}/doc`, `http://[::1]:${port}/doc`]) {
      const error = await failure(strict(url))
      expect(error).toBeInstanceOf(OutboundFetchError)
      expect(error.message).toMatch(/resolves to a loopback address, which SSO requests may not be sent to/)
    }
    expect(hits.length).toBe(before)
  })

  it('refuses cloud metadata addresses even when private networks are allowed', async () => {
    const error = await failure(lenient('http://169.254.169.254/latest/meta-data'))
    expect(error.message).toMatch(/metadata address/)
  })

  it('does not follow redirects and fails on any status but 200', async () => {
    const before = hits.filter((h) => h === '/doc').length
    expect((await failure(lenient(`http://127.0.0.1:${port}/redirect`))).message).toBe(
      'answered 302 (redirects are not followed)'
    )
    expect(hits.filter((h) => h === '/doc').length).toBe(before)
    expect((await failure(lenient(`http://127.0.0.1:${port}/missing`))).message).toBe('answered 404')
  })

  it('caps the body, whether its length is declared or not', async () => {
    for (const path of ['/declared-large', '/streamed-large']) {
      expect((await failure(lenient(`http://127.0.0.1:${port}${path}`))).message).toBe(
        'the answer is larger than 4096 bytes'
      )
    }
  })

  it('gives up at the deadline on a server that trickles its answer', async () => {
    const started = Date.now()
    expect((await failure(lenient(`http://127.0.0.1:${port}/trickle`))).message).toBe(
      'no complete answer within 400 ms'
    )
    expect(Date.now() - started).toBeLessThan(2000)
  })

  it('fails on a body that is not JSON, and on schemes other than http(s)', async () => {
    expect((await failure(lenient(`http://127.0.0.1:${port}/not-json`))).message).toBe('the answer is not JSON')
    expect((await failure(lenient('file:///etc/passwd'))).message).toMatch(/only http\(s\)/)
  })
})

describe('maxAgeOf', () => {
  it.each([
    [undefined, undefined],
    ['public', undefined],
    ['public, max-age=300', 300_000],
    ['max-age="60"', 60_000],
    ['max-age=300, no-cache', 0],
    ['no-store', 0],
    ['Max-Age=10', 10_000],
  ])('reads %s as %s ms', (header, expected) => {
    expect(maxAgeOf(header)).toBe(expected)
  })
})
