/**
 * The React hooks (sdks/react) in a browser page against the real API, as a web app uses them: the page's origin is
 * allowed by API_CORS_ORIGINS, its fetch applies CORS (happy-dom, preflights included), and its access tokens come
 * from the app's own backend (a small server here holding the client secret), never from /oauth/token directly.
 * The README's quick start: slots, a booking, the list; a booking whose answer is lost, retried with its key, makes
 * one appointment; a revoked token renewed through the backend; origins and routes the browser may not reach.
 */
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { QueryClient, QueryClientProvider } from '@tanstack/react-query'
import { createElement, type ReactNode } from 'react'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { TherapyCareClient, type ClientOptions } from '../../sdks/typescript/src/index.ts'
import {
  TherapyCareProvider,
  useAppointmentPages,
  useAvailability,
  useBookAppointment,
  type AvailabilityQuery,
} from '../../sdks/react/src/index.ts'
import type { ProvisionedClient } from '../../domain/tenants/provision-client.ts'
import { openBrowserPage, openOtherOrigin, type BrowserPage } from '../support/browser-window.ts'
import { futureSlot } from '../support/fixtures.ts'
import { startPlatform, type Platform } from '../support/platform.ts'

const APP_ORIGIN = 'http://app.test'

let platform: Platform
let tenant: ProvisionedClient
let page: BrowserPage
let backend: Server
let backendUrl: string
let tokensIssued: string[]
// Loaded once the page's globals exist: React DOM decides at import whether it runs in a browser.
let rtl: typeof import('@testing-library/react')

beforeAll(async () => {
  platform = await startPlatform({ withWorker: false, overrides: { API_CORS_ORIGINS: APP_ORIGIN } })
  tenant = await platform.newTenant(['children', 'providers', 'bookings'])
  tokensIssued = []
  // The app's backend: it holds the client secret, asks the API for a token, and hands the page only the token.
  backend = createServer((req, res) => {
    const cors = { 'Access-Control-Allow-Origin': APP_ORIGIN }
    if (req.method === 'OPTIONS') {
      res.writeHead(204, cors).end()
      return
    }
    void (async () => {
      const answer = await fetch(`${platform.api.url}/oauth/token`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({
          grant_type: 'client_credentials',
          client_id: tenant.client_id,
          client_secret: tenant.client_secret,
        }),
      })
      const { access_token, expires_in } = (await answer.json()) as { access_token: string; expires_in: number }
      tokensIssued.push(access_token)
      res.writeHead(200, { 'Content-Type': 'application/json', ...cors })
      res.end(JSON.stringify({ access_token, expires_in }))
    })()
  })
  await new Promise<void>((resolve) => backend.listen(0, '127.0.0.1', resolve))
  backendUrl = `http://127.0.0.1:${(backend.address() as AddressInfo).port}/therapy-care-token`
  page = openBrowserPage(`${APP_ORIGIN}/booking`)
  rtl = await import('@testing-library/react')
  // waitFor polls for a state; its default of 1 s is a wall-clock margin that a busy CI machine's first requests
  // (the token from the backend, then the call) overran once. The state is what is waited for, not the time.
  rtl.configure({ asyncUtilTimeout: 20_000 })
})

afterEach(() => rtl.cleanup())

afterAll(async () => {
  // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- unset when beforeAll failed before assigning them
  await Promise.allSettled([page?.close(), platform?.stop(), new Promise((resolve) => backend?.close(resolve))])
})

/** A client in the page: the page's fetch (CORS), tokens from the backend. */
function pageClient(options: Partial<ClientOptions> = {}) {
  return new TherapyCareClient({
    baseUrl: platform.api.url,
    fetch: page.fetch,
    accessToken: async () =>
      (await (await page.fetch(backendUrl)).json()) as { access_token: string; expires_in: number },
    ...options,
  })
}

function wrapperFor(client: TherapyCareClient) {
  const queryClient = new QueryClient({ defaultOptions: { queries: { retry: false } } })
  return ({ children }: { children?: ReactNode }) =>
    createElement(
      QueryClientProvider,
      { client: queryClient },
      createElement(TherapyCareProvider, { client, cacheScope: tenant.tenantId }, children)
    )
}

async function childAndProvider(client: TherapyCareClient) {
  const child = await client.children.create({ firstName: 'Maya', lastName: 'Okafor', dateOfBirth: '2023-04-18' })
  const provider = await client.providers.create({ name: 'Dana Whitfield', timeZone: 'America/Chicago' })
  return { childId: child.id, providerId: provider.id }
}

const dayOf = (days: number) => ({
  from: futureSlot(days, 0).toISOString(),
  to: futureSlot(days + 1, 0).toISOString(),
})

describe('the quick start in a browser page', () => {
  it('shows slots, books one, and lists the appointment', async () => {
    const client = pageClient()
    const { childId, providerId } = await childAndProvider(client)
    const query: AvailabilityQuery = { providerId, ...dayOf(9), durationMinutes: 45 }
    const { result } = rtl.renderHook(
      () => ({ slots: useAvailability(query), booking: useBookAppointment(), list: useAppointmentPages({ childId }) }),
      { wrapper: wrapperFor(client) }
    )
    await rtl.waitFor(() => expect(result.current.slots.isSuccess).toBe(true))
    const slot = result.current.slots.data!.data[0]!.slots[2]!
    await rtl.waitFor(() => expect(result.current.list.isSuccess).toBe(true))
    expect(result.current.list.data!.pages[0]!.data).toEqual([])

    let booked: Awaited<ReturnType<typeof result.current.booking.book>> | undefined
    await rtl.act(async () => {
      booked = await result.current.booking.book({ childId, providerId, startsAt: slot.startsAt, endsAt: slot.endsAt })
    })
    expect(booked).toMatchObject({ status: 'CONFIRMED', childId })
    // Settling the booking fetched the list and the slots again: the appointment is listed, its slot is gone.
    await rtl.waitFor(() => expect(result.current.list.data!.pages[0]!.data.map((a) => a.id)).toEqual([booked!.id]))
    await rtl.waitFor(() =>
      expect(result.current.slots.data!.data[0]!.slots.map((s) => s.startsAt)).not.toContain(slot.startsAt)
    )
  })

  it('pages through appointments with the cursor', async () => {
    const client = pageClient()
    const { childId, providerId } = await childAndProvider(client)
    for (const days of [20, 21, 22])
      await client.appointments.create({ childId, providerId, startsAt: futureSlot(days).toISOString() })
    const { result } = rtl.renderHook(() => useAppointmentPages({ childId, limit: 2 }), {
      wrapper: wrapperFor(client),
    })
    await rtl.waitFor(() => expect(result.current.hasNextPage).toBe(true))
    await rtl.act(() => result.current.fetchNextPage())
    await rtl.waitFor(() => expect(result.current.hasNextPage).toBe(false))
    expect(result.current.data!.pages.map((p) => p.data.length)).toEqual([2, 1])
  })
})

describe('retries and tokens', () => {
  it('makes one appointment of a booking whose answer was lost, retried with the same key', async () => {
    const sent: { key: string | null; replayed: string | null }[] = []
    let lose = true
    // The page's fetch, except that the first booking's answer is lost on the way back (after the API committed).
    const lossy: typeof fetch = async (input, init) => {
      const response = await page.fetch(input, init)
      if (init?.method === 'POST' && typeof input === 'string' && input.endsWith('/v1/appointments')) {
        sent.push({
          key: new Headers(init.headers).get('idempotency-key'),
          replayed: response.headers.get('idempotent-replayed'),
        })
        if (lose) {
          lose = false
          throw new TypeError('Failed to fetch')
        }
      }
      return response
    }
    const client = pageClient({ fetch: lossy, retry: { baseDelayMs: 5, maxDelayMs: 20 } })
    const { childId, providerId } = await childAndProvider(pageClient())
    const { result } = rtl.renderHook(() => useBookAppointment(), { wrapper: wrapperFor(client) })
    await rtl.act(async () => {
      await result.current.book({ childId, providerId, startsAt: futureSlot(30).toISOString() })
    })
    expect(sent).toHaveLength(2)
    expect(sent[1]!.key).toBe(sent[0]!.key)
    // The API answered the repeat with the first attempt's result, and the page could read that it did (CORS).
    expect(sent.map((s) => s.replayed)).toEqual([null, 'true'])
    expect(await pageClient().appointments.list({ childId }).toArray()).toHaveLength(1)
  })

  it('asks the backend for a new token after the API refuses a revoked one', async () => {
    const client = pageClient()
    const { childId } = await childAndProvider(client)
    const before = tokensIssued.length
    const { result } = rtl.renderHook(() => useAppointmentPages({ childId }), { wrapper: wrapperFor(client) })
    await rtl.waitFor(() => expect(result.current.isSuccess).toBe(true))
    const revoked = tokensIssued.at(-1)!
    const revocation = await fetch(`${platform.api.url}/oauth/revoke`, {
      method: 'POST',
      headers: {
        'Content-Type': 'application/x-www-form-urlencoded',
        Authorization: `Basic ${Buffer.from(`${tenant.client_id}:${tenant.client_secret}`).toString('base64')}`,
      },
      body: new URLSearchParams({ token: revoked, token_type_hint: 'access_token' }).toString(),
    })
    expect(revocation.status).toBe(200)
    await rtl.act(() => result.current.refetch())
    expect(result.current.isSuccess).toBe(true)
    expect(tokensIssued.length).toBe(before + 1)
    expect(tokensIssued.at(-1)).not.toBe(revoked)
  })
})

describe('what a browser may not do', () => {
  it('refuses pages of other origins, and keeps the token endpoint out of reach of every page', async () => {
    const other = openOtherOrigin('http://elsewhere.test/')
    try {
      const { access_token: token } = (await (await page.fetch(backendUrl)).json()) as { access_token: string }
      const call = { headers: { Authorization: `Bearer ${token}` } }
      // Node's fetch (no CORS) shows the API answers; the pages' fetches show what a browser lets a page read.
      expect((await fetch(`${platform.api.url}/v1/children?limit=1`, call)).status).toBe(200)
      expect((await page.fetch(`${platform.api.url}/v1/children?limit=1`, call)).status).toBe(200)
      await expect(other.fetch(`${platform.api.url}/v1/children?limit=1`, call)).rejects.toThrow(/Cross-Origin/)
      await expect(
        page.fetch(`${platform.api.url}/oauth/token`, {
          method: 'POST',
          headers: { 'Content-Type': 'application/json' },
          body: JSON.stringify({ grant_type: 'client_credentials', client_id: 'x', client_secret: 'y' }),
        })
      ).rejects.toThrow(/Cross-Origin/)
    } finally {
      await other.close()
    }
  })
})
