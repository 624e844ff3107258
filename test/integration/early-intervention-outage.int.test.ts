/**
 * The early-intervention check-in where real time and real processes matter, on the real Temporal dev server, the real
 * worker process and the real database: a meeting recorded through the API while the breach timer fires, and a worker
 * killed mid-clock. Plan days are shortened to one second (CARE_WORKFLOW_DAY_MS), so a referral put 45 days back
 * breaches the 45-day limit about a second later. Plan time runs from the workflow's start, so a slow first activity
 * (a cold worker) would make the first notices late: the worker is warmed up first. The plan itself (reminders,
 * breach, re-planning, exception, exit and return) is proven on real days on the time-skipping server in
 * early-intervention.int.test.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { newCentre, type Centre } from '../support/centre.ts'
import { deadline, earlyInterventionScenario } from '../support/early-intervention-scenario.ts'
import { eventually, startPlatform, type Platform } from '../support/platform.ts'

const DAY_MS = 1000
const ZONE = 'America/Chicago'

let platform: Platform
let centre: Centre

beforeAll(async () => {
  platform = await startPlatform({ overrides: { CARE_WORKFLOW_DAY_MS: String(DAY_MS) } })
  centre = await newCentre(platform, ['children'], ZONE)
  // Warm the worker up (its first activity opens the database pool): plan days are short, a slow start eats them.
  const warm = await enrolledChild({ referralDate: await localDate(-10) })
  await eventually(async () => ((await planOf(warm)).status === 'ACTIVE' ? true : undefined), 60_000)
  await handleOf(warm).terminate('warm-up done')
}, 180_000)

afterAll(async () => {
  // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- unset when beforeAll failed before assigning it
  await platform?.stop()
})

// The dev server's clock, and so the workflows', is the wall clock.
const { localDate, enrolledChild, planOf, ofKind, patchEi, handleOf } = earlyInterventionScenario(() => centre, {
  zone: ZONE,
  now: () => Date.now(),
})

describe('the 45-day clock against real time', () => {
  it('a meeting recorded while the breach timer fires: a breach is never recorded after the meeting was', async () => {
    const results = await Promise.all(
      [0, 1, 2, 3].map(async () => {
        const childId = await enrolledChild({ referralDate: await localDate(-45) })
        const response = await patchEi(childId, { initialIfspDate: await localDate(0) })
        const patchedAt = Date.now()
        expect(response.status).toBe(200)
        await eventually(
          async () => (deadline(await planOf(childId), 'INITIAL_IFSP')?.status === 'MET' ? true : undefined),
          10_000
        )
        await new Promise((resolve) => setTimeout(resolve, 3 * DAY_MS))
        return { childId, patchedAt, breaches: await ofKind(childId, 'INITIAL_IFSP_BREACHED') }
      })
    )
    for (const { breaches, patchedAt } of results) {
      expect(breaches.length).toBeLessThanOrEqual(1)
      for (const b of breaches) {
        expect(Date.parse(b.createdAt)).toBeLessThan(patchedAt)
        expect(b.status).toBe('RESOLVED')
      }
    }
    await Promise.all(results.map((r) => handleOf(r.childId).terminate('test cleanup')))
  })
})

describe('a worker killed mid-clock', () => {
  it('records the breach that fell due while no worker ran, once, when a worker returns', async () => {
    const childId = await enrolledChild({ referralDate: await localDate(-40) })
    await eventually(async () => ((await planOf(childId)).status === 'ACTIVE' ? true : undefined), 10_000)
    await platform.killWorkers('SIGKILL')
    await new Promise((resolve) => setTimeout(resolve, 10 * DAY_MS))
    expect(await ofKind(childId, 'INITIAL_IFSP_BREACHED')).toEqual([])

    await platform.startWorker()
    const breach = await eventually(async () => (await ofKind(childId, 'INITIAL_IFSP_BREACHED'))[0], 30_000)
    expect(breach.dueDate).toBe(await localDate(5))
    await new Promise((resolve) => setTimeout(resolve, 5 * DAY_MS))
    expect(await ofKind(childId, 'INITIAL_IFSP_BREACHED')).toHaveLength(1)
    await handleOf(childId).terminate('test cleanup')
  }, 150_000)
})
