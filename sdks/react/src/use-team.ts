/**
 * @module The centre's team: platform users and their roles, API keys, SSO connections. Each change is a mutation
 * with its own Idempotency-Key and refreshes the list it touches. A new key's secret is in `createApiKey`'s answer
 * only: the list never carries it.
 */
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query'
import type { RequestBody, Schema } from '@therapy-care/sdk'
import { useTherapyCare } from './provider.ts'

/** The body of `POST /v1/api-keys`. */
export type ApiKeyInput = RequestBody<'/v1/api-keys', 'POST'>
/** The body of `POST /v1/sso-connections`. */
export type SsoConnectionInput = RequestBody<'/v1/sso-connections', 'POST'>
/** A platform user's role. */
export type PlatformRole = Schema<'PlatformRole'>

/** The tenant's platform users (the first page of 100). */
export function useTeamUsers() {
  const { client, keys } = useTherapyCare()
  return useQuery({
    queryKey: keys.teamUsers,
    queryFn: ({ signal }) => client.request('GET', '/v1/users', { query: { limit: 100 }, signal }),
  })
}

/** The tenant's API keys, revoked ones included, never their secrets (the first page of 100). */
export function useApiKeys() {
  const { client, keys } = useTherapyCare()
  return useQuery({
    queryKey: keys.apiKeys,
    queryFn: ({ signal }) => client.request('GET', '/v1/api-keys', { query: { limit: 100 }, signal }),
  })
}

/** The identity providers whose users sign in to the tenant. */
export function useSsoConnections() {
  const { client, keys } = useTherapyCare()
  return useQuery({
    queryKey: keys.ssoConnections,
    queryFn: ({ signal }) => client.request('GET', '/v1/sso-connections', { signal }),
  })
}

/** The changes to the team: a user's role or disabled state, an API key created or revoked, an SSO connection. */
export function useTeamActions() {
  const { client, keys, newIdempotencyKey } = useTherapyCare()
  const queryClient = useQueryClient()
  const usersChanged = { onSuccess: () => queryClient.invalidateQueries({ queryKey: keys.teamUsers }) }
  const keysChanged = { onSuccess: () => queryClient.invalidateQueries({ queryKey: keys.apiKeys }) }
  return {
    changeRole: useMutation({
      mutationFn: ({ id, role }: { id: string; role: PlatformRole }) =>
        client.request('PATCH', '/v1/users/{id}', {
          params: { id },
          body: { role },
          idempotencyKey: newIdempotencyKey(),
        }),
      ...usersChanged,
    }),
    setDisabled: useMutation({
      mutationFn: ({ id, disabled }: { id: string; disabled: boolean }) =>
        client.request('PATCH', '/v1/users/{id}', {
          params: { id },
          body: { disabled },
          idempotencyKey: newIdempotencyKey(),
        }),
      ...usersChanged,
    }),
    createApiKey: useMutation({
      mutationFn: (input: ApiKeyInput) =>
        client.request('POST', '/v1/api-keys', { body: input, idempotencyKey: newIdempotencyKey() }),
      ...keysChanged,
    }),
    connectSso: useMutation({
      mutationFn: (input: SsoConnectionInput) =>
        client.request('POST', '/v1/sso-connections', { body: input, idempotencyKey: newIdempotencyKey() }),
      onSuccess: () => queryClient.invalidateQueries({ queryKey: keys.ssoConnections }),
    }),
    revokeApiKey: useMutation({
      mutationFn: (id: string) =>
        client.request('DELETE', '/v1/api-keys/{id}', { params: { id }, idempotencyKey: newIdempotencyKey() }),
      ...keysChanged,
    }),
  }
}
