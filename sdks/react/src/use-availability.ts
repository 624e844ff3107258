/**
 * @module Bookable slots (`GET /v1/availability`). A slot someone else just booked is gone on the next fetch, so the
 * data goes stale at once and a booking refetches it (use-book-appointment.ts).
 */
import { skipToken, useQuery } from '@tanstack/react-query'
import { useTherapyCare } from './provider.ts'
import type { AvailabilityQuery } from './query-keys.ts'

/** The slots matching `query`; idle while it is undefined (e.g. before a provider is chosen). */
export function useAvailability(query: AvailabilityQuery | undefined) {
  const { client, keys } = useTherapyCare()
  return useQuery({
    queryKey: keys.availability(query ?? null),
    staleTime: 0,
    queryFn: query ? ({ signal }) => client.request('GET', '/v1/availability', { query, signal }) : skipToken,
  })
}
