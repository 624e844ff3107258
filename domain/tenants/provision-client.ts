/**
 * @module Provisioning: create a tenant (with its first location) when it does not exist, and an API client with
 * the given scopes. Used by the CLI and by the demo seed; the secret is returned once and stored only as a hash.
 */
import type { Db } from '../../infra/db.ts'
import { isScope, type Scope } from '../auth/scopes.ts'
import { generateSecret, hashSecret } from '../auth/secrets.ts'
import { newId } from '../ids.ts'
import { isValidTimeZone } from '../time.ts'

export interface ProvisionClientInput {
  tenantName: string
  scopes: string[]
  clientName?: string
  /** Time zone of the tenant's first location when the tenant is created. */
  timeZone?: string
  locationName?: string
}

export interface ProvisionedClient {
  tenantId: string
  locationId: string
  /** The time zone of that location (the one given when the tenant was created here; UTC by default). */
  timeZone: string
  client_id: string
  client_secret: string
  scopes: Scope[]
  tenantCreated: boolean
}

/**
 * How long provisioning waits for a connection and may run: an operator's (or a test's) one-off, which may wait longer
 * than Prisma's 2 s default for a connection a loaded machine's requests hold (a CI run's P2028).
 */
const PROVISION_TRANSACTION = { maxWait: 15_000, timeout: 30_000 }

/**
 * Creates the tenant if needed and a new API client for it.
 * @throws Error on an unknown scope or time zone (a CLI mistake, reported as is)
 */
export async function provisionClient(db: Db, input: ProvisionClientInput): Promise<ProvisionedClient> {
  const unknown = input.scopes.filter((s) => !isScope(s))
  if (unknown.length) throw new Error(`Unknown scope(s): ${unknown.join(', ')}`)
  if (input.scopes.length === 0) throw new Error('At least one scope is required')
  const timeZone = input.timeZone ?? 'UTC'
  if (!isValidTimeZone(timeZone)) throw new Error(`Unknown time zone: ${timeZone}`)

  return db.$transaction(async (tx) => {
    // Serialise creation by tenant name so two concurrent calls do not both create the tenant.
    await tx.$executeRaw`SELECT pg_advisory_xact_lock(hashtext(${`tenant:${input.tenantName}`}))`
    let tenant = await tx.tenant.findUnique({ where: { name: input.tenantName }, include: { locations: true } })
    const tenantCreated = !tenant
    if (!tenant) {
      const tenantId = newId('tenant')
      tenant = await tx.tenant.create({
        data: {
          id: tenantId,
          name: input.tenantName,
          locations: { create: { id: newId('location'), name: input.locationName ?? 'Main centre', timeZone } },
        },
        include: { locations: true },
      })
    }
    const location = tenant.locations.sort((a, b) => a.id.localeCompare(b.id))[0]
    if (!location) throw new Error(`Tenant ${tenant.id} has no location`)

    const clientSecret = generateSecret('cs')
    const client = await tx.apiClient.create({
      data: {
        id: newId('apiClient'),
        tenantId: tenant.id,
        name: input.clientName ?? 'API client',
        secretHash: hashSecret(clientSecret),
        scopes: input.scopes,
      },
    })
    return {
      tenantId: tenant.id,
      locationId: location.id,
      timeZone: location.timeZone,
      client_id: client.id,
      client_secret: clientSecret,
      scopes: input.scopes as Scope[],
      tenantCreated,
    }
  }, PROVISION_TRANSACTION)
}
