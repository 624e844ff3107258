/**
 * The lead workflow's reads around the API's own write, on Temporal's time-skipping test server with the real workflow
 * code and activities that report a chosen database state. The API asks the workflow first (an update), then records
 * the move in its own transaction; the workflow reads the lead back meanwhile. A read made before that write commits
 * shows the old status. Through the API this is a race of milliseconds (seen once in a full run: an offer answered 200,
 * and the booking right after it was refused because the workflow had taken the stale MATCHED back); here the read is
 * made stale on purpose, every run.
 */
import { randomUUID } from 'node:crypto'
import type { TestWorkflowEnvironment } from '@temporalio/testing'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { LeadStatus } from '../../common/leads/lead-state.ts'
import {
  bookLeadUpdate,
  leadChangedSignal,
  leadStateQuery,
  offerLeadUpdate,
  type LeadSnapshot,
} from '../../common/leads/lead-qualification-contract.ts'
import { leadQualificationWorkflow } from '../../workflows/lead-qualification.ts'
import { eventually } from '../support/platform.ts'
import { startStubbedWorker, type StubbedWorker } from '../support/test-server.ts'

let env: TestWorkflowEnvironment
let stubbed: StubbedWorker
const taskQueue = `lead-settle-${randomUUID()}`

/** What the database says of each lead, as the activities read it; a test moves it as the API's commit would. */
const database = new Map<string, LeadSnapshot>()
/** How many times the workflow has read each lead back (settleLead). */
const reads = new Map<string, number>()

const snapshot = (leadId: string) => database.get(leadId) ?? { status: 'NEW', offeredAt: null, followUpsSent: 0 }
const commit = (leadId: string, status: LeadStatus, offeredAt: number | null = null) =>
  database.set(leadId, { status, offeredAt, followUpsSent: 0 })

beforeAll(async () => {
  type Ref = { leadId: string }
  stubbed = await startStubbedWorker(taskQueue, {
    qualifyLead: ({ leadId }: Ref) => (commit(leadId, 'QUALIFIED'), snapshot(leadId)),
    matchLead: ({ leadId }: Ref) => (commit(leadId, 'MATCHED'), snapshot(leadId)),
    settleLead: ({ leadId }: Ref) => {
      reads.set(leadId, (reads.get(leadId) ?? 0) + 1)
      return snapshot(leadId)
    },
    recordLeadFollowUp: ({ leadId }: Ref) => snapshot(leadId),
    closeLeadNoResponse: ({ leadId }: Ref) => (commit(leadId, 'LOST'), snapshot(leadId)),
  })
  env = stubbed.env
}, 120_000)

afterAll(() => stubbed.stop())

async function matchedLead() {
  const leadId = `lead_${randomUUID().replaceAll('-', '')}`
  const handle = await env.client.workflow.start(leadQualificationWorkflow, {
    taskQueue,
    workflowId: `lead-settle-test-${leadId}`,
    args: [{ tenantId: 'ten_settle', leadId }],
  })
  await eventually(async () => ((await handle.query(leadStateQuery)).status === 'MATCHED' ? true : undefined), 20_000)
  return { leadId, handle }
}

describe('the lead workflow reading the lead back while the API records an accepted move', () => {
  it('keeps an accepted offer through a read made before the API committed it: a booking right after is accepted', async () => {
    const { leadId, handle } = await matchedLead()
    const before = reads.get(leadId) ?? 0

    const offered = await handle.executeUpdate(offerLeadUpdate)
    // The workflow reads the lead back before the API's write commits: the database still says MATCHED.
    await eventually(async () => ((reads.get(leadId) ?? 0) > before ? true : undefined), 20_000)
    expect((await handle.query(leadStateQuery)).status).toBe('OFFERED')

    // The API commits and answers its caller, who books at once, before the workflow has read the commit.
    commit(leadId, 'OFFERED', offered.offeredAt)
    expect(await handle.executeUpdate(bookLeadUpdate)).toEqual({ status: 'BOOKED' })
    commit(leadId, 'BOOKED', offered.offeredAt)
    await handle.signal(leadChangedSignal)
    expect(await handle.result()).toEqual({ status: 'BOOKED', followUpsSent: 0 })
  })

  it('takes the database status back a minute later when the API never committed the accepted move', async () => {
    const { leadId, handle } = await matchedLead()
    const before = reads.get(leadId) ?? 0

    await handle.executeUpdate(offerLeadUpdate)
    await eventually(async () => ((reads.get(leadId) ?? 0) > before ? true : undefined), 20_000)
    expect((await handle.query(leadStateQuery)).status).toBe('OFFERED')

    // The request failed after the update: no commit, no signal. The second read comes on the minute's timer.
    await env.sleep('61 seconds')
    await eventually(async () => ((await handle.query(leadStateQuery)).status === 'MATCHED' ? true : undefined), 20_000)
    expect(reads.get(leadId)).toBe(before + 2)
    const refused = await handle.executeUpdate(bookLeadUpdate).then(
      () => undefined,
      (error: unknown) => error as { cause?: { message?: string } }
    )
    expect(refused?.cause?.message).toMatch(/The lead is MATCHED/)
    await handle.terminate('test over')
  })
})
