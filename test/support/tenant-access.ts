/**
 * @module How a test gets a tenant and a token from a running API, on the dev-server platform and the time-skipping
 * one alike: a new tenant (with one location) and a client holding the given scopes, and its client-credentials token.
 */
import { randomBytes } from 'node:crypto'
import type { RunningApi } from '../../api/start-api.ts'
import { provisionClient, type ProvisionedClient } from '../../domain/tenants/provision-client.ts'
import type { HttpClient } from './http.ts'

export interface TenantAccess {
  /** A new tenant (with one location) and a client holding `scopes`. */
  newTenant(scopes: string[], timeZone?: string): Promise<ProvisionedClient>
  /** A client-credentials access token. */
  token(client: ProvisionedClient, scope?: string): Promise<string>
}

export function tenantAccess(api: RunningApi, http: HttpClient): TenantAccess {
  return {
    newTenant: (scopes, timeZone = 'America/Chicago') =>
      provisionClient(api.deps.db, {
        tenantName: `Test centre ${randomBytes(6).toString('hex')}`,
        scopes,
        timeZone,
      }),
    async token(client, scope) {
      const response = await http.post('/oauth/token', {
        body: {
          grant_type: 'client_credentials',
          client_id: client.client_id,
          client_secret: client.client_secret,
          scope,
        },
      })
      if (response.status !== 200)
        throw new Error(`token request failed: ${response.status} ${JSON.stringify(response.body)}`)
      return response.body.access_token as string
    },
  }
}
