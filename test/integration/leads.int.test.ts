/**
 * Marketplace leads end to end on Temporal's time-skipping test server, the real API, a real worker with the real
 * activities and the real database: a family's enquiry is qualified by rules (or disqualified, every failing rule
 * explained), matched to providers with their next slots, offered slots, followed up at the policy's interval and
 * closed LOST when nobody answers, or booked through the normal booking path and closed BOOKED with the appointment.
 * The policy's real days (CARE_WORKFLOW_DAY_MS at its default): follow-ups 2, 4 and 6 days after the offer, the close
 * after 7, reached by moving the server's clock. Bookings racing the close and a worker killed mid-offer are in
 * leads-outage.int.test.ts, on the dev server.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { recordHistory } from '../replay-histories/record-history.ts'
import { leadsScenario, type Lead } from '../support/leads-scenario.ts'
import { eventually } from '../support/platform.ts'
import { startTimeSkippingPlatform, type TimeSkippingPlatform } from '../support/time-skipping.ts'
import { newId } from '../../domain/ids.ts'

const DAY_MS = 86_400_000
const RESPOND_MS = 7 * DAY_MS

let platform: TimeSkippingPlatform

beforeAll(async () => {
  platform = await startTimeSkippingPlatform()
})

afterAll(async () => {
  // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- unset when beforeAll failed before assigning it
  await platform?.stop()
})

const { newCentre, send, provider, child, enquiry, getLead, leadIn, handleOf, followUps, offer } = leadsScenario(
  () => platform
)

describe('qualification and matching', () => {
  it('qualifies an enquiry a provider can take, explains each rule, and records the top providers with their slots', async () => {
    const centre = await newCentre()
    const providerId = await provider(centre)
    const response = await send(centre, 'POST', '/v1/leads', enquiry(centre))
    expect(response.status, JSON.stringify(response.body)).toBe(201)
    expect(response.body.status).toBe('NEW')
    expect(response.headers.get('location')).toBe(`/v1/leads/${response.body.id}`)

    const lead = await eventually(async () => {
      const l = await getLead(centre, response.body.id)
      return l.status === 'MATCHED' ? l : undefined
    })
    expect(lead.qualification!.outcome).toBe('QUALIFIED')
    expect(lead.qualification!.checks.map((c) => [c.rule, c.passed])).toEqual([
      ['NEEDS_OFFERED', true],
      ['AGE_SERVED', true],
      ['LOCATION_SERVED', true],
      ['PAYER_ACCEPTED', true],
    ])
    expect(lead.qualification!.checks[3]!.explanation).toBe('1 provider of those accept MEDICAID.')
    expect(lead.matches).toHaveLength(1)
    expect(lead.matches[0]).toMatchObject({ providerId, discipline: 'SPEECH_THERAPY', rank: 1 })
    expect(lead.matches[0]!.nextSlots.length).toBeGreaterThan(0)
    expect(lead.followUps).toEqual({ sent: 0, max: 3, nextAt: null })

    // Operators find the workflow by tenant and kind; nothing about the family is in its id, attributes or summary.
    const description = await handleOf(centre, lead.id).describe()
    expect(description.status.name).toBe('RUNNING')
    expect(description.searchAttributes).toMatchObject({
      TenantId: [centre.tenantId],
      WorkflowKind: ['lead-qualification'],
      LocationId: [centre.locationId],
    })
    const visible = JSON.stringify([
      description.workflowId,
      description.searchAttributes,
      await description.staticSummary(),
      await description.staticDetails(),
    ])
    expect(visible).not.toMatch(/Amara|amara@|Okafor|STUTTERING/i)
  })

  it('disqualifies an enquiry, naming every failing rule, and ends the workflow', async () => {
    const centre = await newCentre()
    await provider(centre)
    const lead = await leadIn(centre, 'DISQUALIFIED', { ageMonths: 100, payer: 'AETNA' })
    expect(lead.qualification!.checks.filter((c) => !c.passed).map((c) => c.rule)).toEqual([
      'AGE_SERVED',
      'PAYER_ACCEPTED',
    ])
    expect(lead.qualification!.checks.find((c) => c.rule === 'PAYER_ACCEPTED')!.explanation).toBe(
      'No provider of those accepts AETNA.'
    )
    expect(lead.matches).toEqual([])
    expect(await handleOf(centre, lead.id).result()).toEqual({ status: 'DISQUALIFIED', followUpsSent: 0 })

    const refused = await send(centre, 'POST', `/v1/leads/${lead.id}/close`, { reason: 'OTHER' })
    expect(refused.status).toBe(409)
    expect(refused.body.code).toBe('invalid_state_transition')
  })

  it('refuses an enquiry that does not say where, how old or how to reach the family', async () => {
    const centre = await newCentre()
    const response = await send(centre, 'POST', '/v1/leads', { disciplines: ['SPEECH_THERAPY'], payer: 'MEDICAID' })
    expect(response.status).toBe(400)
    expect(response.body.code).toBe('validation_error')
    expect(response.body.errors.map((e: { path: string }) => e.path).sort()).toEqual([
      'ageMonths',
      'contact',
      'postalArea',
    ])
    const unknown = await send(centre, 'POST', '/v1/leads', enquiry(centre, { locationId: newId('location') }))
    expect(unknown.status).toBe(400)
    expect(unknown.body.errors).toEqual([expect.objectContaining({ path: 'locationId', code: 'not_found' })])
  })
})

describe('offer, follow-ups and close', () => {
  it('follows an unanswered offer up three times, once each, then closes it LOST (NO_RESPONSE)', async () => {
    const centre = await newCentre()
    await provider(centre)
    const matched = await leadIn(centre, 'MATCHED')
    const notMatched = await send(centre, 'POST', `/v1/leads/${matched.id}/offer`, {
      slots: [{ providerId: newId('provider'), startsAt: matched.matches[0]!.nextSlots[0]!.startsAt }],
    })
    expect(notMatched.status).toBe(400)
    expect(notMatched.body.errors[0]).toMatchObject({ path: 'slots.0', code: 'not_matched' })

    const { lead: offered } = await offer(centre, matched)
    expect(offered.status).toBe('OFFERED')
    expect(offered.offeredSlots).toHaveLength(1)
    const offeredAt = Date.parse((offered as unknown as { offeredAt: string }).offeredAt)
    expect(Date.parse(offered.followUps.nextAt!)).toBe(offeredAt + 2 * DAY_MS)
    expect(Date.parse(offered.respondBy!)).toBe(offeredAt + RESPOND_MS)

    // Each follow-up goes out on its day (2, 4, 6 days after the offer), not before, once; the lead stays OFFERED.
    for (const n of [1, 2, 3]) {
      await platform.skipTo(offeredAt + n * 2 * DAY_MS - 60_000)
      expect((await getLead(centre, matched.id)).followUps.sent).toBe(n - 1)
      await platform.skipTo(offeredAt + n * 2 * DAY_MS + 60_000)
      expect(await getLead(centre, matched.id)).toMatchObject({ status: 'OFFERED', followUps: { sent: n } })
      expect(await followUps(centre, matched.id)).toHaveLength(n)
    }
    // Closed at the end of the seventh day, not before.
    await platform.skipTo(offeredAt + RESPOND_MS - 60_000)
    expect((await getLead(centre, matched.id)).status).toBe('OFFERED')
    await platform.skipTo(offeredAt + RESPOND_MS + 60_000)

    const result = await handleOf(centre, matched.id).result()
    expect(result).toEqual({ status: 'LOST', followUpsSent: 3 })
    const lost = await getLead(centre, matched.id)
    expect(lost).toMatchObject({
      status: 'LOST',
      closedReason: 'NO_RESPONSE',
      followUps: { sent: 3, max: 3, nextAt: null },
    })
    const notices = await followUps(centre, matched.id)
    expect(notices.map((n) => [n.kind, (n.details as { followUp: number }).followUp, n.status])).toEqual([
      ['LEAD_FOLLOW_UP', 1, 'CANCELLED'],
      ['LEAD_FOLLOW_UP', 2, 'CANCELLED'],
      ['LEAD_FOLLOW_UP', 3, 'CANCELLED'],
    ])
    const listed = await send(centre, 'GET', `/v1/leads/${matched.id}/notifications?sort=createdAt`)
    expect(listed.status).toBe(200)
    expect(
      listed.body.data.map((n: { kind: string; status: string; details: { followUp: number } }) => [
        n.kind,
        n.details.followUp,
        n.status,
      ])
    ).toEqual([
      ['LEAD_FOLLOW_UP', 1, 'CANCELLED'],
      ['LEAD_FOLLOW_UP', 2, 'CANCELLED'],
      ['LEAD_FOLLOW_UP', 3, 'CANCELLED'],
    ])
    await recordHistory(handleOf(centre, matched.id), 'leadQualificationWorkflow-offered-then-lost')

    const { providerId, startsAt } = offered.offeredSlots[0]!
    const late = await send(centre, 'POST', `/v1/leads/${matched.id}/book`, {
      providerId,
      startsAt,
      childId: await child(centre),
    })
    expect(late.status).toBe(409)
    expect(late.body.code).toBe('invalid_state_transition')
  }, 60_000)

  it('books an offered slot through the booking path and closes the lead BOOKED with the appointment', async () => {
    const centre = await newCentre()
    const providerId = await provider(centre)
    const childId = await child(centre)
    const matched = await leadIn(centre, 'MATCHED', { childId })
    const { slot } = await offer(centre, matched)

    const wrong = await send(centre, 'POST', `/v1/leads/${matched.id}/book`, {
      providerId,
      startsAt: '2030-01-01T10:00:00Z',
    })
    expect(wrong.status).toBe(400)
    expect(wrong.body.errors[0]).toMatchObject({ path: 'startsAt', code: 'not_offered' })

    const booked = await send(centre, 'POST', `/v1/leads/${matched.id}/book`, slot)
    expect(booked.status, JSON.stringify(booked.body)).toBe(200)
    expect(booked.body).toMatchObject({ status: 'BOOKED', childId, followUps: { nextAt: null } })
    const appointment = await send(centre, 'GET', `/v1/appointments/${booked.body.appointmentId}`)
    expect(appointment.status).toBe(200)
    expect(appointment.body).toMatchObject({
      status: 'CONFIRMED',
      childId,
      provider: { id: providerId },
      type: 'EVALUATION',
      service: 'SPEECH_THERAPY',
    })
    expect(Date.parse(appointment.body.startsAt)).toBe(Date.parse(slot.startsAt))

    expect(await handleOf(centre, matched.id).result()).toEqual({ status: 'BOOKED', followUpsSent: 0 })
    await recordHistory(handleOf(centre, matched.id), 'leadQualificationWorkflow-booked')
    const again = await send(centre, 'POST', `/v1/leads/${matched.id}/close`, { reason: 'OTHER' })
    expect(again.status).toBe(409)
    expect(again.body.code).toBe('invalid_state_transition')
  }, 60_000)

  it('closes a matched lead LOST with the reason a person gives', async () => {
    const centre = await newCentre()
    await provider(centre)
    const matched = await leadIn(centre, 'MATCHED')
    const offerFirst = await send(centre, 'POST', `/v1/leads/${matched.id}/book`, {
      providerId: matched.matches[0]!.providerId,
      startsAt: matched.matches[0]!.nextSlots[0]!.startsAt,
      childId: await child(centre),
    })
    expect(offerFirst.status).toBe(409)
    expect(offerFirst.body.code).toBe('invalid_state_transition')

    const closed = await send(centre, 'POST', `/v1/leads/${matched.id}/close`, {
      reason: 'CHOSE_ANOTHER_PROVIDER',
      note: 'Went with a clinic nearer school',
    })
    expect(closed.status).toBe(200)
    expect(closed.body).toMatchObject({
      status: 'LOST',
      closedReason: 'CHOSE_ANOTHER_PROVIDER',
      closedNote: 'Went with a clinic nearer school',
    })
    expect(await handleOf(centre, matched.id).result()).toEqual({ status: 'LOST', followUpsSent: 0 })
    const workflowOnly = await send(centre, 'POST', `/v1/leads/${matched.id}/close`, { reason: 'NO_MATCH' })
    expect(workflowOnly.status).toBe(400)
  })
})

describe('reading, listing, patching and tenants', () => {
  it('lists by status, merges a contact patch, and hides a lead from another tenant', async () => {
    const centre = await newCentre()
    await provider(centre)
    const matched = await leadIn(centre, 'MATCHED')
    const disqualified = await leadIn(centre, 'DISQUALIFIED', { payer: 'AETNA' })

    const page = await send(centre, 'GET', '/v1/leads?status=MATCHED&limit=1')
    expect(page.status).toBe(200)
    expect(page.body.data.map((l: Lead) => l.id)).toEqual([matched.id])
    expect(page.body.nextCursor).toBeNull()
    const all = await send(centre, 'GET', '/v1/leads?sort=createdAt&limit=1')
    expect(all.body.data.map((l: Lead) => l.id)).toEqual([matched.id])
    const next = await send(
      centre,
      'GET',
      `/v1/leads?sort=createdAt&limit=1&cursor=${encodeURIComponent(all.body.nextCursor)}`
    )
    expect(next.body.data.map((l: Lead) => l.id)).toEqual([disqualified.id])

    const patched = await send(centre, 'PATCH', `/v1/leads/${matched.id}`, {
      contact: { phone: '+13125550100', email: null },
    })
    expect(patched.status, JSON.stringify(patched.body)).toBe(200)
    expect(patched.body.contact).toEqual({ name: 'Amara Okafor', email: null, phone: '+13125550100' })
    const emptied = await send(centre, 'PATCH', `/v1/leads/${matched.id}`, { contact: null })
    expect(emptied.status).toBe(400)
    const needs = await send(centre, 'PATCH', `/v1/leads/${matched.id}`, { payer: 'AETNA' })
    expect(needs.status).toBe(400)
    const closed = await send(centre, 'PATCH', `/v1/leads/${disqualified.id}`, { contact: { name: 'A. Okafor' } })
    expect(closed.status).toBe(409)
    expect(closed.body.code).toBe('invalid_state_transition')

    const other = await newCentre()
    for (const [method, path, body] of [
      ['GET', `/v1/leads/${matched.id}`, undefined],
      ['PATCH', `/v1/leads/${matched.id}`, { contact: { name: 'X' } }],
      [
        'POST',
        `/v1/leads/${matched.id}/offer`,
        {
          slots: [{ providerId: matched.matches[0]!.providerId, startsAt: matched.matches[0]!.nextSlots[0]!.startsAt }],
        },
      ],
      ['POST', `/v1/leads/${matched.id}/close`, { reason: 'OTHER' }],
      ['GET', `/v1/leads/${matched.id}/notifications`, undefined],
    ] as const) {
      const response = await send(other, method, path, body)
      expect(response.status, `${method} ${path}`).toBe(404)
      expect(response.body.code).toBe('not_found')
    }
    expect((await send(other, 'GET', '/v1/leads')).body.data).toEqual([])
    expect((await getLead(centre, matched.id)).status).toBe('MATCHED')
  }, 60_000)
})
