/**
 * Marketplace leads where real time and real processes matter, on the real Temporal dev server, the real worker
 * process and the real database: bookings through the API racing the NO_RESPONSE close, and a worker killed
 * mid-offer. Days are shortened (CARE_WORKFLOW_DAY_MS = 1000 ms): the first follow-up comes 2 s after the offer and
 * the close after 7 s. The policy itself (qualification, matching, follow-ups, close, booking) is proven on real days
 * on the time-skipping server in leads.int.test.ts.
 */
import { randomUUID } from 'node:crypto'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { leadQualificationWorkflowId } from '../../workflows/lead-qualification-contract.ts'
import { eventually, startPlatform, type Platform } from '../support/platform.ts'

const DAY_MS = 1000
const RESPOND_MS = 7 * DAY_MS

let platform: Platform

beforeAll(async () => {
  platform = await startPlatform({ overrides: { CARE_WORKFLOW_DAY_MS: String(DAY_MS) } })
})

afterAll(async () => {
  // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- unset when beforeAll failed before assigning it
  await platform?.stop()
})

interface Centre {
  tenantId: string
  locationId: string
  token: string
}

async function newCentre(): Promise<Centre> {
  const client = await platform.newTenant(['leads', 'providers', 'bookings', 'children', 'matching'], 'UTC')
  return { tenantId: client.tenantId, locationId: client.locationId, token: await platform.token(client) }
}

const send = (centre: Centre, method: string, path: string, body?: unknown) =>
  platform.http.request(method, path, { token: centre.token, body, headers: { 'Idempotency-Key': randomUUID() } })

async function created(centre: Centre, path: string, body: unknown): Promise<string> {
  const response = await send(centre, 'POST', path, body)
  expect(response.status, `${path}: ${JSON.stringify(response.body)}`).toBe(201)
  return response.body.id
}

/** An approved speech therapist for pre-schoolers at the centre's location, open schedule, taking MEDICAID. */
async function provider(centre: Centre, payers = ['MEDICAID']): Promise<string> {
  const id = await created(centre, '/v1/providers', {
    name: 'Dana Whitfield',
    timeZone: 'UTC',
    locationId: centre.locationId,
    disciplines: ['SPEECH_THERAPY'],
    ageGroups: ['PRESCHOOL'],
  })
  const profile = await send(centre, 'PATCH', `/v1/therapists/${id}/match-profile`, { payers })
  expect(profile.status, JSON.stringify(profile.body)).toBe(200)
  return id
}

const child = (centre: Centre) =>
  created(centre, '/v1/children', { firstName: 'Maya', lastName: 'Okafor', dateOfBirth: '2022-06-18' })

const enquiry = (centre: Centre, over: Record<string, unknown> = {}) => ({
  locationId: centre.locationId,
  ageMonths: 40,
  disciplines: ['SPEECH_THERAPY'],
  concerns: ['stuttering'],
  languages: ['en'],
  payer: 'medicaid',
  contact: { name: 'Amara Okafor', email: 'amara@example.test' },
  ...over,
})

type Lead = {
  id: string
  status: string
  qualification: { outcome: string; checks: Array<{ rule: string; passed: boolean; explanation: string }> } | null
  matches: Array<{ providerId: string; discipline: string; nextSlots: Array<{ startsAt: string; endsAt: string }> }>
  offeredSlots: Array<{ providerId: string; startsAt: string }>
  followUps: { sent: number; max: number; nextAt: string | null }
  respondBy: string | null
  appointmentId: string | null
  closedReason: string | null
  workflowId: string
}

const getLead = async (centre: Centre, id: string): Promise<Lead> => {
  const response = await send(centre, 'GET', `/v1/leads/${id}`)
  expect(response.status, JSON.stringify(response.body)).toBe(200)
  return response.body
}

/** Creates a lead and waits for its workflow to settle it in `status`. */
async function leadIn(centre: Centre, status: string, over: Record<string, unknown> = {}): Promise<Lead> {
  const id = await created(centre, '/v1/leads', enquiry(centre, over))
  return eventually(async () => {
    const lead = await getLead(centre, id)
    return lead.status === status ? lead : undefined
  }, 30_000)
}

const handleOf = (centre: Centre, leadId: string) =>
  platform.temporal.workflow.getHandle(leadQualificationWorkflowId(centre.tenantId, leadId))

/** The lead's follow-up notifications, oldest first. */
const followUps = (centre: Centre, leadId: string) =>
  platform.api.deps.db.careNotification.findMany({
    where: {
      tenantId: centre.tenantId,
      workflowKind: 'lead-qualification',
      details: { path: ['leadId'], equals: leadId },
    },
    orderBy: { createdAt: 'asc' },
  })

/** Offers the lead's first match's second slot (an hour or more ahead, so it is still bookable later). */
async function offer(centre: Centre, lead: Lead, providerId = lead.matches[0]!.providerId) {
  const match = lead.matches.find((m) => m.providerId === providerId)!
  const slot = match.nextSlots[1] ?? match.nextSlots[0]!
  const response = await send(centre, 'POST', `/v1/leads/${lead.id}/offer`, {
    slots: [{ providerId, startsAt: slot.startsAt }],
  })
  expect(response.status, JSON.stringify(response.body)).toBe(200)
  return { lead: response.body as Lead, slot: { providerId, startsAt: slot.startsAt } }
}

describe('the API racing the close of the window', () => {
  it('lets exactly one of booking and the NO_RESPONSE close win, and the database agrees with the answer', async () => {
    const centre = await newCentre()
    const providers = [await provider(centre), await provider(centre), await provider(centre)]
    // Well before the close, at it, and after it.
    const offsets = [-3000, 0, 1500]
    const runs = await Promise.all(
      offsets.map(async (offset, i) => {
        const childId = await child(centre)
        const matched = await leadIn(centre, 'MATCHED', { childId })
        const { lead, slot } = await offer(centre, matched, providers[i])
        await new Promise((resolve) =>
          setTimeout(resolve, Math.max(0, Date.parse(lead.respondBy!) + offset - Date.now()))
        )
        const response = await send(centre, 'POST', `/v1/leads/${lead.id}/book`, slot)
        return { id: lead.id, childId, response }
      })
    )
    for (const { id, childId, response } of runs) {
      const result = await handleOf(centre, id).result()
      const lead = await getLead(centre, id)
      const appointments = await platform.api.deps.db.appointment.count({
        where: { tenantId: centre.tenantId, childId },
      })
      if (response.status === 200) {
        expect(result.status).toBe('BOOKED')
        expect(lead).toMatchObject({ status: 'BOOKED', closedReason: null })
        expect(appointments).toBe(1)
      } else {
        expect(response.status, JSON.stringify(response.body)).toBe(409)
        expect(response.body.code).toBe('invalid_state_transition')
        expect(result.status).toBe('LOST')
        expect(lead).toMatchObject({ status: 'LOST', closedReason: 'NO_RESPONSE', appointmentId: null })
        // The refused booking's appointment was rolled back with it.
        expect(appointments).toBe(0)
      }
    }
    expect(runs[0]!.response.status).toBe(200)
    expect(runs.at(-1)!.response.status).toBe(409)
  }, 120_000)
})

describe('a worker killed mid-offer', () => {
  it('carries on after a crash: the close that fell due while no worker ran happens once, without the moot follow-ups', async () => {
    const centre = await newCentre()
    await provider(centre)
    const matched = await leadIn(centre, 'MATCHED')
    await offer(centre, matched)
    await eventually(async () => ((await getLead(centre, matched.id)).followUps.sent === 1 ? true : undefined), 15_000)

    await platform.killWorkers('SIGKILL')
    await new Promise((resolve) => setTimeout(resolve, RESPOND_MS))
    // Nothing happened while no worker ran.
    expect((await getLead(centre, matched.id)).status).toBe('OFFERED')
    await platform.startWorker()

    expect(await handleOf(centre, matched.id).result()).toEqual({ status: 'LOST', followUpsSent: 1 })
    expect(await getLead(centre, matched.id)).toMatchObject({ status: 'LOST', closedReason: 'NO_RESPONSE' })
    expect((await followUps(centre, matched.id)).map((n) => (n.details as { followUp: number }).followUp)).toEqual([1])
  }, 120_000)
})
