/**
 * @module Records the integration tests create over HTTP: a child, a provider, an appointment. Each call makes new
 * records, so tests never depend on one another's data.
 */
import type { HttpClient } from './http.ts'

/** The client scopes for booking appointments and checking them in (children, providers, bookings, sessions). */
export const APPOINTMENT_SCOPES = ['children', 'providers', 'bookings', 'sessions']

/**
 * A start time `days` ahead at `hourUtc`:00 UTC.
 * @param from - now, epoch ms: the wall clock, or the API's clock where it runs ahead (time skipping)
 */
export function futureSlot(days: number, hourUtc = 15, from = Date.now()): Date {
  const d = new Date(from + days * 24 * 3600 * 1000)
  d.setUTCHours(hourUtc, 0, 0, 0)
  return d
}

async function created(response: Promise<{ status: number; body: { id?: string } }>, what: string): Promise<string> {
  const { status, body } = await response
  if (status !== 201 || !body.id) throw new Error(`creating ${what} answered ${status}: ${JSON.stringify(body)}`)
  return body.id
}

/** A new child and a new provider in `timeZone`. */
export async function createChildAndProvider(http: HttpClient, token: string, timeZone = 'America/Chicago') {
  const [childId, providerId] = await Promise.all([
    created(
      http.post('/v1/children', { token, body: { firstName: 'Maya', lastName: 'Okafor', dateOfBirth: '2023-04-18' } }),
      'a child'
    ),
    created(http.post('/v1/providers', { token, body: { name: 'Dana Whitfield', timeZone } }), 'a provider'),
  ])
  return { childId, providerId }
}

/**
 * A new child, provider and appointment: `days` ahead at the usual slot, or from `startsAt` (to `endsAt`, else the
 * default length) when given.
 */
export async function bookAppointment(
  http: HttpClient,
  token: string,
  options: { days?: number; timeZone?: string; startsAt?: Date; endsAt?: Date } = {}
) {
  const { childId, providerId } = await createChildAndProvider(http, token, options.timeZone)
  const startsAt = options.startsAt ?? futureSlot(options.days ?? 5)
  const id = await created(
    http.post('/v1/appointments', {
      token,
      body: {
        childId,
        providerId,
        startsAt: startsAt.toISOString(),
        ...(options.endsAt ? { endsAt: options.endsAt.toISOString() } : {}),
      },
    }),
    'an appointment'
  )
  return { id, childId, providerId }
}
