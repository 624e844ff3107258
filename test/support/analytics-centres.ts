/**
 * @module Centres for the analytics tests: a tenant holding every scope analytics reads, requests made as it (each
 * write with its own Idempotency-Key), and units of work in its tenant for writing records directly.
 */
import { randomUUID } from 'node:crypto'
import { expect } from 'vitest'
import { runInUnitOfWork, type UnitOfWork } from '../../infra/unit-of-work.ts'
import type { Platform } from './platform.ts'

export const ANALYTICS_SCOPES = ['providers', 'children', 'bookings', 'orders', 'payments', 'analytics']
export const MINUTE = 60_000

export interface Centre {
  tenantId: string
  locationId: string
  token: string
}

/** @param platform - read on each call: test files start their platform in `beforeAll` */
export function analyticsCentres(platform: () => Platform) {
  const send = (t: Centre, method: string, path: string, body?: unknown) =>
    platform().http.request(method, path, { token: t.token, body, headers: { 'Idempotency-Key': randomUUID() } })
  return {
    newCentre: async (): Promise<Centre> => {
      const client = await platform().newTenant(ANALYTICS_SCOPES, 'America/Chicago')
      return { tenantId: client.tenantId, locationId: client.locationId, token: await platform().token(client) }
    },
    send,
    /** A request that must answer `status`; its body. */
    ok: async (t: Centre, method: string, path: string, body?: unknown, status = 201) => {
      const response = await send(t, method, path, body)
      expect(response.status, `${method} ${path}: ${JSON.stringify(response.body)}`).toBe(status)
      return response.body
    },
    inTenant: <T>(t: Centre, work: (uow: UnitOfWork) => Promise<T>) =>
      runInUnitOfWork(platform().api.deps.db, t.tenantId, work),
  }
}
