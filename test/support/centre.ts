/**
 * @module A tenant a test acts as, on either platform (the dev server's or the time-skipping one): its ids, its token
 * and the platform itself, so the per-area scenario helpers (leads-scenario.ts, appointment-scenario.ts...) take one value
 * and serve a timer file and its outage file alike.
 */
import { expect } from 'vitest'
import type { PlatformBase } from './platform.ts'

export interface Centre {
  platform: PlatformBase
  tenantId: string
  /** The tenant's one location. */
  locationId: string
  token: string
}

/** A new tenant (with one location) whose client holds `scopes`, and its token. */
export async function newCentre(platform: PlatformBase, scopes: string[], timeZone?: string): Promise<Centre> {
  const client = await platform.newTenant(scopes, timeZone)
  return { platform, tenantId: client.tenantId, locationId: client.locationId, token: await platform.token(client) }
}

/** Sets `settings` (note deadline, reminder offsets...) on every location of the centre. */
export async function patchLocations(centre: Centre, settings: Record<string, unknown>): Promise<void> {
  const { http } = centre.platform
  const locations = await http.get('/v1/locations', { token: centre.token })
  expect(locations.status, JSON.stringify(locations.body)).toBe(200)
  for (const location of locations.body.data as Array<{ id: string }>) {
    const patched = await http.request('PATCH', `/v1/locations/${location.id}`, { token: centre.token, body: settings })
    expect(patched.status, JSON.stringify(patched.body)).toBe(200)
  }
}
