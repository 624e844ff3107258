/**
 * @module The demo seed: on an empty database, a demo tenant with one location, an API client holding every scope,
 * one provider and one child, so a first-time user can get a token and book straight away.
 */
import { ALL_SCOPES } from '../domain/auth/scopes.ts'
import { createChild } from '../domain/children/child-service.ts'
import { createProvider } from '../domain/providers/provider-service.ts'
import { provisionClient } from '../domain/tenants/provision-client.ts'
import type { Db } from '../infra/db.ts'
import { runInUnitOfWork } from '../infra/unit-of-work.ts'

export interface DemoCredentials {
  tenantId: string
  locationId: string
  client_id: string
  client_secret: string
  providerId: string
  childId: string
}

/**
 * Seeds the demo when the database has no tenant yet.
 * @returns the demo's ids and credentials, or undefined when the database was not empty
 */
export async function seedDemo(db: Db): Promise<DemoCredentials | undefined> {
  if ((await db.tenant.count()) > 0) return undefined
  const client = await provisionClient(db, {
    tenantName: 'Demo Therapy Centre',
    clientName: 'Demo client',
    scopes: ALL_SCOPES,
    timeZone: 'America/Chicago',
    locationName: 'Demo Therapy Centre — Main Street',
  })
  const { provider, child } = await runInUnitOfWork(db, client.tenantId, async (uow) => ({
    provider: await createProvider(uow, { name: 'Dana Whitfield, CCC-SLP', timeZone: 'America/Chicago' }),
    child: await createChild(uow, { firstName: 'Maya', lastName: 'Demo', dateOfBirth: '2023-04-18' }, new Date()),
  }))
  return {
    tenantId: client.tenantId,
    locationId: client.locationId,
    client_id: client.client_id,
    client_secret: client.client_secret,
    providerId: provider.id,
    childId: child.id,
  }
}
