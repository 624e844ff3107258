/**
 * @module Query keys, one factory so that hooks and invalidations agree. Every key starts with the provider's
 * `cacheScope`: `invalidateQueries({ queryKey: keys.all })` clears one scope and nothing of another.
 */
import type { QueryParams } from '@therapy-care/sdk'

/** The filters of `GET /v1/appointments` (without the cursor, which pages follow themselves). */
export type AppointmentFilters = Omit<NonNullable<QueryParams<'/v1/appointments', 'GET'>>, 'cursor'>
/** The query of `GET /v1/availability`. */
export type AvailabilityQuery = NonNullable<QueryParams<'/v1/availability', 'GET'>>

export function therapyCareKeys(scope: string) {
  const all = ['therapy-care', scope] as const
  const appointments = [...all, 'appointments'] as const
  return {
    all,
    appointments,
    appointmentPages: (filters: AppointmentFilters = {}) => [...appointments, 'pages', filters] as const,
    appointment: (id: string | null) => [...appointments, 'one', id] as const,
    availability: (query: AvailabilityQuery | null) => [...all, 'availability', query] as const,
    /** The mutation key of bookings, to follow pending ones with `useMutationState`. */
    booking: [...all, 'book-appointment'] as const,
  }
}

export type TherapyCareKeys = ReturnType<typeof therapyCareKeys>
