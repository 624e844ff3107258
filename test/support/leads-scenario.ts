/**
 * @module The marketplace leads tests' helpers, shared by leads.int.test.ts (time-skipping server, real days) and
 * leads-outage.int.test.ts (dev server, crashes and races): a centre taking leads, requests made as it, a matchable
 * provider, a child, an enquiry, a lead's API view and workflow, its follow-up notifications, and an offer. A test
 * makes its own centres (another tenant's, to prove isolation), so every helper but `newCentre` takes one.
 */
import { randomUUID } from 'node:crypto'
import { expect } from 'vitest'
import { leadQualificationWorkflowId } from '../../common/leads/lead-qualification-contract.ts'
import { newCentre as newTenantCentre, type Centre } from './centre.ts'
import { eventually, type PlatformBase } from './platform.ts'

export type Lead = {
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

/**
 * The helpers, on the file's platform.
 * @param platform - read on each call: test files start their platform in `beforeAll`
 */
export function leadsScenario(platform: () => PlatformBase) {
  /** A new centre in UTC (so slots and days line up) with every scope the leads flow uses. */
  const newCentre = () => newTenantCentre(platform(), ['leads', 'providers', 'bookings', 'children', 'matching'], 'UTC')

  /** A request as the centre, each with its own Idempotency-Key. */
  const send = (centre: Centre, method: string, path: string, body?: unknown) =>
    centre.platform.http.request(method, path, {
      token: centre.token,
      body,
      headers: { 'Idempotency-Key': randomUUID() },
    })

  /** POSTs `body` to `path`, which must answer 201; the new record's id. */
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

  /** A family's enquiry the centre's provider can take (speech therapy, 40 months, MEDICAID), changed by `over`. */
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

  async function getLead(centre: Centre, id: string): Promise<Lead> {
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
    centre.platform.temporal.workflow.getHandle(leadQualificationWorkflowId(centre.tenantId, leadId))

  /** The lead's follow-up notifications, oldest first. */
  const followUps = (centre: Centre, leadId: string) =>
    centre.platform.db.careNotification.findMany({
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

  return { newCentre, send, created, provider, child, enquiry, getLead, leadIn, handleOf, followUps, offer }
}
