/**
 * @module The lead qualification workflow: one run per lead, from the family's enquiry to BOOKED or LOST.
 *
 * 1. Qualify the lead by rules (domain/leads/lead-qualification.ts), the explanation recorded on the lead.
 * 2. Match it (the matching domain) and record the top providers with their next slots; a qualified lead nobody can
 *    see yet is matched again each follow-up interval, and closed LOST (NO_MATCH) after the last attempt.
 * 3. Wait for a person to offer slots (an update from the API).
 * 4. While the offer is unanswered: follow the family up at the policy's interval (a care notification, once each,
 *    a bounded number), and close LOST (NO_RESPONSE) when the response window ends.
 * 5. End when the lead is booked (update from the API, which books through the normal booking path) or closed.
 *
 * The workflow decides; the database records. An update is accepted or refused against the workflow's status in one
 * synchronous turn (the window closing sets LOST before anything is awaited, so a later booking is refused), and the
 * API records what was accepted in a transaction of its own, begun after the update returned (it holds none while it
 * waits). Afterwards the workflow re-reads the lead; if the read does not show the accepted status yet, it reads again
 * when the API signals that its write committed (`leadChanged`), or a minute later: if the request failed to commit,
 * the workflow takes the database's status back.
 */
import * as wf from '@temporalio/workflow'
import { standardActivityOptions } from './activity-options.ts'
import {
  leadPolicyOf,
  nextOfferStep,
  offerAction,
  offerTimers,
  offerWakeAt,
  type LeadPolicy,
} from '../common/leads/lead-policy.ts'
import { isFinal, leadUpdateRefusal, type LeadCloseReason, type LeadStatus } from '../common/leads/lead-state.ts'
import {
  bookLeadUpdate,
  closeLeadUpdate,
  leadStateQuery,
  LEAD_KEEP_ACCEPTED_PATCH,
  LEAD_SETTLE_AFTER_COMMIT_PATCH,
  leadChangedSignal,
  offerLeadUpdate,
  type LeadQualificationActivities,
  type LeadQualificationInput,
  type LeadQualificationResult,
  type LeadSnapshot,
} from '../common/leads/lead-qualification-contract.ts'
import { DAY_MS } from '../common/time/calendar.ts'

const activities = wf.proxyActivities<LeadQualificationActivities>(standardActivityOptions('1 minute'))

const refuse = (message: string): never => {
  throw wf.ApplicationFailure.create({ type: 'invalid_state_transition', message, nonRetryable: true })
}
const refuseIf = (message: string | undefined) => (message === undefined ? undefined : refuse(message))

const iso = (ms: number | null | undefined) => (ms === null || ms === undefined ? null : new Date(ms).toISOString())

/**
 * A run's mutable state, in one cell the update handlers and the loop share (the handlers change it between the loop's
 * awaits).
 */
interface Run {
  status: LeadStatus
  offeredAt: number | null
  followUpsSent: number
  /** An update was accepted and the API is recording it: re-read the lead before deciding anything else. */
  unsettled: boolean
  /** The status of the last accepted update, until a read has settled it. */
  accepted?: LeadStatus
  matchAttempts: number
}

/** Where an offer stands: its next follow-up and its deadline, or null before any offer. */
const offerStepOf = (run: Run, policy: LeadPolicy, dayMs: number) =>
  run.offeredAt === null ? null : nextOfferStep(offerTimers(run.offeredAt, policy, dayMs), run.followUpsSent)

/**
 * The API's updates (offer, book, close: each accepted against the run's status and recorded by the API, which the
 * run then re-reads), the lead-changed signal and the state query.
 */
function setHandlers(run: Run, input: LeadQualificationInput, timers: () => ReturnType<typeof offerStepOf>): void {
  wf.setHandler(
    offerLeadUpdate,
    () => {
      run.status = 'OFFERED'
      run.offeredAt = Date.now()
      run.followUpsSent = 0
      run.unsettled = true
      run.accepted = run.status
      const { followUp, respondBy } = timers()!
      return { offeredAt: run.offeredAt, nextFollowUpAt: followUp?.at ?? null, respondBy }
    },
    { validator: () => refuseIf(leadUpdateRefusal('offer', run.status)) }
  )
  wf.setHandler(
    bookLeadUpdate,
    () => {
      run.status = 'BOOKED'
      run.unsettled = true
      run.accepted = run.status
      return { status: run.status }
    },
    { validator: () => refuseIf(leadUpdateRefusal('book', run.status)) }
  )
  wf.setHandler(
    closeLeadUpdate,
    ({ reason }) => {
      // A reason code only: the note a person may add stays in the database.
      wf.log.info('lead closed on request', { leadId: input.leadId, reason })
      run.status = 'LOST'
      run.unsettled = true
      run.accepted = run.status
      return { status: run.status }
    },
    { validator: ({ reason }: { reason: LeadCloseReason }) => refuseIf(leadUpdateRefusal('close', run.status, reason)) }
  )
  wf.setHandler(leadChangedSignal, () => {
    run.unsettled = true
  })
  wf.setHandler(leadStateQuery, () => {
    const t = run.status === 'OFFERED' ? timers() : null
    return {
      status: run.status,
      followUpsSent: run.followUpsSent,
      nextFollowUpAt: iso(t?.followUp?.at),
      respondBy: iso(t?.respondBy),
    }
  })
}

export async function leadQualificationWorkflow(input: LeadQualificationInput): Promise<LeadQualificationResult> {
  const policy = leadPolicyOf(input.policy)
  const dayMs = input.dayMs ?? DAY_MS
  const ref = { tenantId: input.tenantId, leadId: input.leadId }
  const run: Run = { status: 'NEW', offeredAt: null, followUpsSent: 0, unsettled: false, matchAttempts: 0 }
  const timers = () => offerStepOf(run, policy, dayMs)
  /** Takes the database's word (an activity's report), unless an update moved on meanwhile: that one is re-read next. */
  const adopt = (snapshot: LeadSnapshot) => {
    if (run.unsettled) return
    run.status = snapshot.status
    run.offeredAt = snapshot.offeredAt
    run.followUpsSent = snapshot.followUpsSent
  }

  setHandlers(run, input, timers)

  while (!isFinal(run.status) || run.unsettled) {
    // Statuses and counts only: operators see this in the Temporal UI, never the family's details.
    wf.setCurrentDetails(
      `Status: ${run.status} · follow-ups sent: ${run.followUpsSent} · match attempts: ${run.matchAttempts}`
    )
    if (run.unsettled) {
      run.unsettled = false
      const expected = run.accepted
      run.accepted = undefined
      const snapshot = await activities.settleLead(ref)
      // An update handler may have set it while the read ran; TypeScript keeps the assignment's narrowing.
      const movedOn = run.unsettled as boolean
      // What the read says, unless an update moved on during it (that one is read next).
      const read = movedOn ? run.status : snapshot.status
      const beforeCommit = expected !== undefined && read !== expected
      // Read before the API's write committed: the status the workflow accepted stands until the API says the write
      // committed or a minute passes. Taking the stale read would refuse, meanwhile, a booking of the offer the API
      // has just confirmed to its caller.
      if (!(beforeCommit && !movedOn && wf.patched(LEAD_KEEP_ACCEPTED_PATCH))) adopt(snapshot)
      // Again once the API says so, or a minute later (the request failed: the database's status is then taken).
      if (beforeCommit && wf.patched(LEAD_SETTLE_AFTER_COMMIT_PATCH)) {
        await wf.condition(() => run.unsettled, '1 minute')
        // Read again at the top: once, unless a move accepted meanwhile brings its own expectation.
        run.unsettled = true
      }
      continue
    }
    switch (run.status) {
      case 'NEW':
        adopt(await activities.qualifyLead(ref))
        break
      case 'QUALIFIED': {
        run.matchAttempts++
        adopt(await activities.matchLead({ ...ref, policy, lastAttempt: run.matchAttempts >= policy.matchAttempts }))
        // Nobody to offer yet: try again after an interval (new providers, freed slots), unless a person acts first.
        // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- `adopt` has just reassigned `run.status`; TypeScript keeps the case's narrowing across the call
        if (run.status === 'QUALIFIED') await wf.condition(() => run.unsettled, policy.followUpEveryDays * dayMs)
        break
      }
      case 'MATCHED':
        await wf.condition(() => run.unsettled)
        break
      case 'OFFERED': {
        const step = timers()!
        const { respondBy } = step
        if (await wf.condition(() => run.unsettled, Math.max(1, offerWakeAt(step) - Date.now()))) break
        const action = offerAction(step, Date.now())
        if (action.kind === 'CLOSE') {
          // Decided in this turn, before anything is awaited: from here on a booking is refused.
          run.status = 'LOST'
          adopt(await activities.closeLeadNoResponse(ref))
          break
        }
        // A timer can only fire at or after its instant; this guards the arithmetic, not a real case.
        if (action.kind !== 'FOLLOW_UP') break
        const { followUp } = action
        const next = nextOfferStep(offerTimers(run.offeredAt!, policy, dayMs), followUp.n)
        run.followUpsSent = followUp.n
        adopt(
          await activities.recordLeadFollowUp({
            ...ref,
            offeredAt: run.offeredAt!,
            followUp: followUp.n,
            nextFollowUpAt: next.followUp?.at ?? null,
            respondBy,
          })
        )
        break
      }
    }
  }
  // Updates answered moments ago complete before the workflow does.
  await wf.condition(wf.allHandlersFinished)
  wf.log.info('lead closed', { leadId: input.leadId, status: run.status })
  return { status: run.status, followUpsSent: run.followUpsSent }
}
