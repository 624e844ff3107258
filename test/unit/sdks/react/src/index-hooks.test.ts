// @vitest-environment happy-dom
/**
 * The React hooks (sdks/react) in a browser-like environment (happy-dom: its fetch enforces CORS like a browser),
 * against a scripted HTTP peer on loopback for what the real API cannot be made to do on demand (a connection that
 * drops before any answer, again and again). The hooks against the real API: test/integration/sdk-react.int.test.ts.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { QueryClient, QueryClientProvider } from '@tanstack/react-query'
import { act, renderHook, waitFor } from '@testing-library/react'
import { createElement, type ReactNode } from 'react'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { ApiError, TherapyCareClient } from '../../../../../sdks/typescript/src/index.ts'
import {
  TherapyCareProvider,
  useAppointmentPages,
  useBookAppointment,
  usePendingBookings,
} from '../../../../../sdks/react/src/index.ts'

interface Seen {
  method: string
  path: string
  headers: IncomingMessage['headers']
  body: string
}
type Handler = (req: Seen, res: ServerResponse) => void

let server: Server
let baseUrl: string
let seen: Seen[]
/** Answers for /v1 requests, in order; then `fallback`. */
let script: Handler[]
let fallback: Handler

const CORS = {
  'Access-Control-Allow-Origin': '*',
  'Access-Control-Expose-Headers': 'X-Request-Id, Retry-After',
}
const json =
  (status: number, body: unknown): Handler =>
  (_req, res) => {
    const type = status >= 400 ? 'application/problem+json' : 'application/json'
    res.writeHead(status, { 'Content-Type': type, ...CORS })
    res.end(JSON.stringify(body))
  }
const dropConnection: Handler = (_req, res) => res.socket!.destroy()

beforeEach(async () => {
  seen = []
  script = []
  fallback = json(200, { data: [], nextCursor: null })
  server = createServer((req, res) => {
    if (req.method === 'OPTIONS') {
      // The browser's preflight for a JSON write with a bearer token and an Idempotency-Key.
      res.writeHead(204, {
        ...CORS,
        'Access-Control-Allow-Methods': 'GET, POST',
        'Access-Control-Allow-Headers': 'Authorization, Content-Type, Idempotency-Key',
      })
      res.end()
      return
    }
    let body = ''
    req.on('data', (chunk: Buffer) => (body += chunk.toString()))
    req.on('end', () => {
      const entry = { method: req.method!, path: req.url!, headers: req.headers, body }
      seen.push(entry)
      ;(script.shift() ?? fallback)(entry, res)
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
})

afterEach(async () => {
  server.closeAllConnections()
  await new Promise((resolve) => server.close(resolve))
})

let tokensAsked = 0
function harness(scope = 'tenant-a', queryClient = newQueryClient()) {
  tokensAsked = 0
  // As the app's backend would hand it over: no client secret in the page.
  const client = new TherapyCareClient({
    baseUrl,
    accessToken: async () => ({ access_token: `at_${++tokensAsked}`, expires_in: 900 }),
    // The SDK gives up on a dropped connection at once, so the hook's own retries are what is tested.
    retry: { maxAttempts: 1 },
  })
  const wrapper = ({ children }: { children?: ReactNode }) =>
    createElement(
      QueryClientProvider,
      { client: queryClient },
      createElement(TherapyCareProvider, { client, cacheScope: scope }, children)
    )
  return { wrapper, queryClient }
}
function newQueryClient() {
  return new QueryClient({ defaultOptions: { queries: { retry: false }, mutations: { retryDelay: 5 } } })
}

const input = { childId: 'chd_1', providerId: 'prv_1', startsAt: '2026-12-01T15:00:00Z' }
const posts = () => seen.filter((s) => s.method === 'POST')

describe('useBookAppointment', () => {
  it('retries a booking whose connection dropped with the same Idempotency-Key, showing it as pending meanwhile', async () => {
    let release!: () => void
    const held = new Promise<void>((resolve) => (release = resolve))
    script.push(dropConnection, dropConnection, (req, res) => {
      void held.then(() => json(201, { id: 'apt_1', status: 'CONFIRMED', ...input })(req, res))
    })
    const { wrapper } = harness()
    const { result } = renderHook(() => ({ booking: useBookAppointment(), pending: usePendingBookings() }), {
      wrapper,
    })

    let booked!: Promise<unknown>
    act(() => {
      booked = result.current.booking.book(input)
    })
    await waitFor(() => expect(posts()).toHaveLength(3))
    expect(result.current.pending).toEqual([{ input, idempotencyKey: expect.any(String) }])
    const key = result.current.pending[0]!.idempotencyKey
    expect(posts().map((p) => p.headers['idempotency-key'])).toEqual([key, key, key])
    expect(posts().map((p) => p.headers.authorization)).toEqual(['Bearer at_1', 'Bearer at_1', 'Bearer at_1'])

    release()
    await expect(booked).resolves.toMatchObject({ id: 'apt_1' })
    await waitFor(() => expect(result.current.pending).toEqual([]))
    expect(tokensAsked).toBe(1)
  })

  it('does not retry a refusal: the problem reaches the caller as ApiError', async () => {
    script.push(
      json(409, { type: 'about:blank', title: 'Slot unavailable', status: 409, code: 'slot_unavailable', detail: 'x' })
    )
    const { wrapper } = harness()
    const { result } = renderHook(() => useBookAppointment(), { wrapper })
    let outcome: unknown
    await act(async () => {
      outcome = await result.current.book(input).catch((error: unknown) => error)
    })
    expect(outcome).toBeInstanceOf(ApiError)
    expect(outcome).toMatchObject({ status: 409, code: 'slot_unavailable' })
    expect(posts()).toHaveLength(1)
    await waitFor(() => expect(result.current.isError).toBe(true))
  })

  it('gives each logical booking its own key, and takes the caller own key when given', async () => {
    script.push(json(201, { id: 'apt_1' }), json(201, { id: 'apt_2' }), json(201, { id: 'apt_3' }))
    const { wrapper } = harness()
    const { result } = renderHook(() => useBookAppointment(), { wrapper })
    await act(async () => {
      await result.current.book(input)
      await result.current.book(input)
      await result.current.book(input, { idempotencyKey: 'visit-42' })
    })
    const keys = posts().map((p) => p.headers['idempotency-key'])
    expect(new Set(keys).size).toBe(3)
    expect(keys[2]).toBe('visit-42')
  })
})

describe('useAppointmentPages', () => {
  it('follows nextCursor page by page with the same filters, and fetches again after a booking', async () => {
    script.push(
      json(200, { data: [{ id: 'apt_1' }], nextCursor: 'c2' }),
      json(200, { data: [{ id: 'apt_2' }], nextCursor: null })
    )
    const { wrapper } = harness()
    const { result } = renderHook(
      () => ({ pages: useAppointmentPages({ childId: 'chd_1' }), booking: useBookAppointment() }),
      {
        wrapper,
      }
    )
    await waitFor(() => expect(result.current.pages.hasNextPage).toBe(true))
    await act(() => result.current.pages.fetchNextPage())
    await waitFor(() => expect(result.current.pages.hasNextPage).toBe(false))
    expect(result.current.pages.data?.pages.flatMap((p) => p.data.map((a) => a.id))).toEqual(['apt_1', 'apt_2'])
    const gets = () => seen.filter((s) => s.method === 'GET').map((s) => s.path)
    expect(gets()).toEqual(['/v1/appointments?childId=chd_1', '/v1/appointments?childId=chd_1&cursor=c2'])

    script.push(json(201, { id: 'apt_3' }))
    await act(async () => {
      await result.current.booking.book(input)
    })
    // The list is refetched from its first page once the booking settles.
    await waitFor(() => expect(gets().length).toBeGreaterThan(2))
    expect(gets()[2]).toBe('/v1/appointments?childId=chd_1')
  })

  it('keeps each cache scope to itself: a second scope on the same QueryClient fetches its own data', async () => {
    const queryClient = newQueryClient()
    const a = harness('tenant-a', queryClient)
    const first = renderHook(() => useAppointmentPages(), { wrapper: a.wrapper })
    await waitFor(() => expect(first.result.current.isSuccess).toBe(true))
    const b = harness('tenant-b', queryClient)
    const second = renderHook(() => useAppointmentPages(), { wrapper: b.wrapper })
    await waitFor(() => expect(second.result.current.isSuccess).toBe(true))
    expect(seen.filter((s) => s.method === 'GET')).toHaveLength(2)
    expect(queryClient.getQueryCache().findAll({ queryKey: ['therapy-care', 'tenant-a'] })).toHaveLength(1)
    expect(queryClient.getQueryCache().findAll({ queryKey: ['therapy-care', 'tenant-b'] })).toHaveLength(1)
  })
})
