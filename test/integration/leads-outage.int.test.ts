/**
 * Marketplace leads where real time and real processes matter, on the real Temporal dev server, the real worker
 * process and the real database: bookings through the API racing the NO_RESPONSE close, and a worker killed
 * mid-offer. Days are shortened (CARE_WORKFLOW_DAY_MS = 1000 ms): the first follow-up comes 2 s after the offer and
 * the close after 7 s. The policy itself (qualification, matching, follow-ups, close, booking) is proven on real days
 * on the time-skipping server in leads.int.test.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { leadsScenario } from '../support/leads-scenario.ts'
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

const { newCentre, send, provider, child, getLead, leadIn, handleOf, followUps, offer } = leadsScenario(() => platform)

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
      const appointments = await platform.db.appointment.count({
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
