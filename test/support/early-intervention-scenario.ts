/**
 * @module The early-intervention tests' helpers, shared by early-intervention.int.test.ts (time-skipping server, the
 * plan's real days) and early-intervention-outage.int.test.ts (dev server, shortened days, crashes and races): the
 * centre's calendar dates, a child enrolled through the children API, its plan, notices and workflow, and the PATCH
 * that changes its dates.
 */
import { expect } from 'vitest'
import { earlyInterventionWorkflowId } from '../../common/early-intervention/early-intervention-contract.ts'
import type { Centre } from './centre.ts'

const DAY_MS = 86_400_000

export interface Notification {
  kind: string
  status: string
  dueDate: string | null
  details: { series?: string; daysFromDue?: number }
  createdAt: string
}

export type Deadline = { kind: string; dueDate: string; status: string; metOn?: string }

/** The calendar date `days` from `today` (both YYYY-MM-DD). */
export const dayFrom = (today: string, days: number) =>
  new Date(Date.parse(`${today}T00:00:00Z`) + days * DAY_MS).toISOString().slice(0, 10)

/** The plan's deadline of `kind`, if it has one. */
export const deadline = (plan: { deadlines: Array<{ kind: string }> }, kind: string) =>
  plan.deadlines.find((d) => d.kind === kind) as Deadline | undefined

/**
 * The helpers, acting as the file's centre.
 * @param centre - read on each call: test files make their centre in `beforeAll`
 * @param clock.zone - the centre's time zone, which decides its calendar dates
 * @param clock.now - the workflows' clock (epoch ms): the time-skipping server's, or the wall clock on the dev server
 */
export function earlyInterventionScenario(
  centre: () => Centre,
  clock: { zone: string; now: () => number | Promise<number> }
) {
  const http = () => centre().platform.http
  const token = () => centre().token

  /** The centre's calendar date `days` from today, today on the workflows' clock. */
  async function localDate(days: number): Promise<string> {
    const today = new Intl.DateTimeFormat('en-CA', { timeZone: clock.zone }).format(new Date(await clock.now()))
    return dayFrom(today, days)
  }

  /** A child, a year and a half old, registered with `earlyIntervention` (which starts its check-in). */
  async function enrolledChild(earlyIntervention: Record<string, unknown>) {
    const created = await http().post('/v1/children', {
      token: token(),
      body: { firstName: 'Noah', lastName: 'Reyes', dateOfBirth: await localDate(-540), earlyIntervention },
    })
    expect(created.status, JSON.stringify(created.body)).toBe(201)
    return created.body.id as string
  }

  const planOf = async (childId: string) =>
    (await http().get(`/v1/children/${childId}/early-intervention`, { token: token() })).body
  const notices = async (childId: string) =>
    (
      await http().get(`/v1/children/${childId}/early-intervention/notifications?sort=createdAt&limit=100`, {
        token: token(),
      })
    ).body.data as Notification[]
  const ofKind = async (childId: string, kind: string) => (await notices(childId)).filter((n) => n.kind === kind)
  const patchEi = (childId: string, earlyIntervention: Record<string, unknown> | null) =>
    http().request('PATCH', `/v1/children/${childId}`, {
      token: token(),
      body: { earlyIntervention },
      headers: { 'Content-Type': 'application/merge-patch+json' },
    })
  const handleOf = (childId: string) =>
    centre().platform.temporal.workflow.getHandle(earlyInterventionWorkflowId(centre().tenantId, childId))

  return { localDate, enrolledChild, planOf, notices, ofKind, patchEi, handleOf }
}
