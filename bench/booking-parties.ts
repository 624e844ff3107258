/**
 * @module The parties of a booking benchmark: providers, each with a child of its own, created through the API, so
 * that bookings of one provider queue on its row lock as they would in production and no two pairs contend.
 */

/** A client of the benchmark's API for one tenant: creates a resource and answers its id. */
export function creatorFor(apiUrl: string, token: string) {
  const headers = { 'Content-Type': 'application/json', Authorization: `Bearer ${token}` }
  return async function create(path: string, body: object): Promise<string> {
    const response = await fetch(`${apiUrl}${path}`, { method: 'POST', headers, body: JSON.stringify(body) })
    if (response.status !== 201) throw new Error(`${path}: ${response.status} ${await response.text()}`)
    return ((await response.json()) as { id: string }).id
  }
}

/** `count` providers in UTC, each with its own child. */
export function appointmentParties(create: ReturnType<typeof creatorFor>, count: number) {
  return Promise.all(
    Array.from({ length: count }, async (_, i) => ({
      providerId: await create('/v1/providers', { name: `Bench provider ${i}`, timeZone: 'UTC' }),
      childId: await create('/v1/children', { firstName: 'Bench', lastName: `Child ${i}`, dateOfBirth: '2020-03-03' }),
    }))
  )
}
