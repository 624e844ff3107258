/**
 * @module The records a fuzz run starts with (`npm run fuzz`): one of each kind that generated data cannot easily make
 * on its own, created through the API as an integrator would. Schemathesis reaches them from the lists that show them
 * (the description's links, api/openapi/links.ts), so the stateful phase exercises appointments, sessions and notes,
 * assessments and orders rather than only 404s.
 */

/**
 * Creates the records; a refused create stops the run, since every later figure would be about a different setup.
 * @param baseUrl - the API's base URL
 * @param token - an access token with every scope
 */
export async function seedRecords(baseUrl: string, token: string): Promise<void> {
  const post = async (route: string, body: unknown): Promise<{ id: string }> => {
    const response = await fetch(`${baseUrl}${route}`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
      body: JSON.stringify(body),
    })
    const answer = (await response.json()) as { id: string }
    if (!response.ok) throw new Error(`seeding ${route} answered ${response.status}: ${JSON.stringify(answer)}`)
    return answer
  }
  const child = await post('/v1/children', { firstName: 'Fuzz', lastName: 'Child', dateOfBirth: '2022-02-02' })
  const provider = await post('/v1/providers', { name: 'Fuzz Provider', timeZone: 'America/Chicago' })
  const client = await post('/v1/clients', { firstName: 'Fuzz', lastName: 'Parent' })
  // Appointments a few days ahead at distinct hours, so that cancelling, completing or rescheduling one leaves others.
  const day = 24 * 3600 * 1000
  const appointments = []
  for (const [days, hour] of [
    [3, 15],
    [4, 15],
    [5, 16],
  ] as const) {
    const startsAt = new Date(Date.now() + days * day)
    startsAt.setUTCHours(hour, 0, 0, 0)
    appointments.push(
      await post('/v1/appointments', { childId: child.id, providerId: provider.id, startsAt: startsAt.toISOString() })
    )
  }
  const session = await post('/v1/sessions', { appointmentId: appointments[0]!.id })
  await post(`/v1/sessions/${session.id}/notes`, { subjective: 'Fuzz note' })
  await post('/v1/assessments', { childId: child.id, providerId: provider.id, instrument: 'CELF-5' })
  await post('/v1/pets', { ownerClientId: client.id, name: 'Fuzz', species: 'DOG' })
  await post('/v1/orders', { clientId: client.id, lines: [{ kind: 'PRODUCT', description: 'Fuzz', unitAmount: 100 }] })
}
