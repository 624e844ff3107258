/**
 * @module The client every hook uses, and the scope its cached data belongs to. An app that signs a user out and
 * another in (another centre, another family) changes `cacheScope`, so no hook ever shows data cached under the
 * previous credentials: the scope is part of every query key.
 */
import { createContext, createElement, useContext, useMemo, type ReactNode } from 'react'
import type { TherapyCareClient } from '@therapy-care/sdk'
import { therapyCareKeys, type TherapyCareKeys } from './query-keys.ts'

interface TherapyCareContextValue {
  client: TherapyCareClient
  keys: TherapyCareKeys
  newIdempotencyKey: () => string
}

const TherapyCareContext = createContext<TherapyCareContextValue | null>(null)

/** What {@link TherapyCareProvider} takes. */
export interface TherapyCareProviderProps {
  /** A client whose credentials come from the app's backend (`accessToken`), never a client secret. */
  client: TherapyCareClient
  /**
   * Who the cached data belongs to (the signed-in tenant or user): part of every query key. Change it when the
   * credentials change.
   */
  cacheScope: string
  /**
   * Makes the Idempotency-Key of each logical write. Defaults to `crypto.randomUUID()`; React Native has no Web
   * Crypto by default, so pass one from `expo-crypto` or a polyfill there.
   */
  newIdempotencyKey?: () => string
  children?: ReactNode
}

/** Makes a client available to the hooks below it (inside the app's own `QueryClientProvider`). */
export function TherapyCareProvider({ client, cacheScope, newIdempotencyKey, children }: TherapyCareProviderProps) {
  const value = useMemo<TherapyCareContextValue>(
    () => ({
      client,
      keys: therapyCareKeys(cacheScope),
      newIdempotencyKey: newIdempotencyKey ?? (() => globalThis.crypto.randomUUID()),
    }),
    [client, cacheScope, newIdempotencyKey]
  )
  return createElement(TherapyCareContext.Provider, { value }, children)
}

/** The provider's client, query keys and key maker; throws outside a {@link TherapyCareProvider}. */
export function useTherapyCare(): TherapyCareContextValue {
  const value = useContext(TherapyCareContext)
  if (!value) throw new Error('Therapy Care hooks must be used inside <TherapyCareProvider>.')
  return value
}
