/**
 * @module Appointments: one (`useAppointment`) or the list, page after page (`useAppointmentPages`, following
 * `nextCursor`, filters as the API takes them).
 */
import { skipToken, useInfiniteQuery, useQuery } from '@tanstack/react-query'
import { useTherapyCare } from './provider.ts'
import type { AppointmentFilters } from './query-keys.ts'

/** The appointments matching `filters`, a page at a time: `data.pages`, `fetchNextPage()`, `hasNextPage`. */
export function useAppointmentPages(filters: AppointmentFilters = {}) {
  const { client, keys } = useTherapyCare()
  return useInfiniteQuery({
    queryKey: keys.appointmentPages(filters),
    initialPageParam: undefined as string | undefined,
    queryFn: ({ pageParam, signal }) =>
      client.request('GET', '/v1/appointments', { query: { ...filters, cursor: pageParam }, signal }),
    getNextPageParam: (page) => page.nextCursor ?? undefined,
  })
}

/** One appointment by id; idle while `id` is undefined. */
export function useAppointment(id: string | undefined) {
  const { client, keys } = useTherapyCare()
  return useQuery({
    queryKey: keys.appointment(id ?? null),
    queryFn: id
      ? ({ signal }) => client.request('GET', '/v1/appointments/{id}', { params: { id }, signal })
      : skipToken,
  })
}
