/**
 * @module Who the credentials belong to (`GET /v1/me`) and what they may do: an app shows the signed-in person and
 * hides the controls their role does not allow (the API refuses those calls either way).
 */
import { useQuery } from '@tanstack/react-query'
import { useTherapyCare } from './provider.ts'

/** The caller: kind, tenant, scopes (or an API key's permissions) and, for a platform user, their user record. */
export function useCaller() {
  const { client, keys } = useTherapyCare()
  return useQuery({
    queryKey: keys.caller,
    queryFn: ({ signal }) => client.request('GET', '/v1/me', { signal }),
    staleTime: 60_000,
  })
}

/**
 * Whether a caller with `scopes` may use `scope` as the API decides it: `x` grants `x` and `x.read`; `x.read` grants
 * only reads.
 */
export function scopeAllows(scopes: readonly string[], scope: string): boolean {
  return scopes.includes(scope) || (scope.endsWith('.read') && scopes.includes(scope.slice(0, -'.read'.length)))
}
