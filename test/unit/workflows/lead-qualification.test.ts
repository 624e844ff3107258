/**
 * The lead workflow's decisions: which updates it accepts in which status, and what an unanswered offer's timer
 * means (follow up, close LOST, or nothing). The offer timers themselves are in test/unit/common/leads/lead-policy.test.ts.
 */
import { describe, expect, it } from 'vitest'
import {
  DEFAULT_LEAD_POLICY,
  nextOfferStep,
  offerAction,
  offerTimers,
  offerWakeAt,
} from '../../../common/leads/lead-policy.ts'
import { LEAD_STATUSES, leadUpdateRefusal, type LeadStatus } from '../../../common/leads/lead-state.ts'

const DAY = 86_400_000
const offeredAt = Date.parse('2026-11-02T09:00:00Z')
const timers = offerTimers(offeredAt, DEFAULT_LEAD_POLICY, DAY)

describe('leadUpdateRefusal', () => {
  const accepting = (update: 'offer' | 'book' | 'close') =>
    LEAD_STATUSES.filter((status: LeadStatus) => leadUpdateRefusal(update, status, 'OTHER') === undefined)

  it('offers slots to a MATCHED lead, and again to an OFFERED one (a new offer), never otherwise', () => {
    expect(accepting('offer')).toEqual(['MATCHED', 'OFFERED'])
    expect(leadUpdateRefusal('offer', 'QUALIFIED')).toBe(
      'The lead is QUALIFIED; only a MATCHED or OFFERED lead is offered slots.'
    )
  })

  it('books only an OFFERED lead: once the window closed it is LOST and a late booking is refused', () => {
    expect(accepting('book')).toEqual(['OFFERED'])
    expect(leadUpdateRefusal('book', 'LOST')).toBe('The lead is LOST; only an OFFERED lead is booked.')
  })

  it('closes any open lead, and refuses to close one already closed, naming the reason asked for', () => {
    expect(accepting('close')).toEqual(['NEW', 'QUALIFIED', 'MATCHED', 'OFFERED'])
    expect(leadUpdateRefusal('close', 'BOOKED', 'FAMILY_DECLINED')).toBe(
      'The lead is already BOOKED; it is not closed FAMILY_DECLINED.'
    )
  })
})

describe('an unanswered offer', () => {
  it('wakes for each follow-up, then for the close of the response window', () => {
    expect(offerWakeAt(nextOfferStep(timers, 0))).toBe(offeredAt + 2 * DAY)
    expect(offerWakeAt(nextOfferStep(timers, 2))).toBe(offeredAt + 6 * DAY)
    // All follow-ups sent: only the close is left.
    expect(offerWakeAt(nextOfferStep(timers, 3))).toBe(offeredAt + 7 * DAY)
  })

  it('follows up when the follow-up is due, numbered from the ones already sent', () => {
    expect(offerAction(nextOfferStep(timers, 1), offeredAt + 4 * DAY)).toEqual({
      kind: 'FOLLOW_UP',
      followUp: { n: 2, at: offeredAt + 4 * DAY },
    })
  })

  it('closes the lead once the window is over, even when a follow-up is also overdue (a worker that was down)', () => {
    expect(offerAction(nextOfferStep(timers, 0), offeredAt + 7 * DAY)).toEqual({ kind: 'CLOSE' })
    expect(offerAction(nextOfferStep(timers, 3), offeredAt + 7 * DAY)).toEqual({ kind: 'CLOSE' })
  })

  it('does nothing before anything is due', () => {
    expect(offerAction(nextOfferStep(timers, 0), offeredAt + 2 * DAY - 1)).toEqual({ kind: 'WAIT' })
    expect(offerAction(nextOfferStep(timers, 3), offeredAt + 7 * DAY - 1)).toEqual({ kind: 'WAIT' })
  })

  it('with follow-ups that would fall at the close dropped, wakes only for the close', () => {
    const sparse = offerTimers(offeredAt, { ...DEFAULT_LEAD_POLICY, followUpEveryDays: 7 }, DAY)
    expect(offerWakeAt(nextOfferStep(sparse, 0))).toBe(offeredAt + 7 * DAY)
  })
})
