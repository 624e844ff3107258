/**
 * @module A credential that signs a provider's session notes. Only a credential linked to the session's provider signs
 * (or an administrator, on the record: domain/notes/signing-authority.ts), so a test that signs notes signs with an API
 * key linked to the provider, made as the operator's CLI makes one (`api-keys create --provider`): no administrator or
 * extra scope for the file's own client. One key per provider, remembered for the file.
 */
import { createApiKey, OPERATOR_GRANTOR } from '../../domain/auth/api-key-service.ts'
import { ALL_SCOPES } from '../../domain/auth/scopes.ts'
import { runInUnitOfWork } from '../../infra/unit-of-work.ts'
import type { PlatformBase } from './platform.ts'

const keys = new Map<string, Promise<string>>()

/**
 * The secret of an API key of `tenantId` linked to `providerId`, allowed to read and write sessions (notes included).
 * @param platform - the platform whose database holds the tenant; its API's clock dates the key
 */
export function providerKey(platform: PlatformBase, tenantId: string, providerId: string): Promise<string> {
  const cacheKey = `${tenantId}/${providerId}`
  let key = keys.get(cacheKey)
  if (!key) {
    key = runInUnitOfWork(platform.db, tenantId, async (uow) => {
      const { secret } = await createApiKey(
        uow,
        { kind: 'scopes', scopes: ALL_SCOPES },
        OPERATOR_GRANTOR,
        { name: 'Signs notes', permissions: [{ resource: 'sessions', methods: ['GET', 'POST'] }], providerId },
        platform.api.deps.clock
      )
      return secret
    })
    keys.set(cacheKey, key)
  }
  return key
}
