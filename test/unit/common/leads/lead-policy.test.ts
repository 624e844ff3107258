/** Offer timers: follow-ups every interval, bounded in number, never at or after the close. */
import { describe, expect, it } from 'vitest'
import { DEFAULT_LEAD_POLICY, leadPolicyOf, nextOfferStep, offerTimers } from '../../../../common/leads/lead-policy.ts'

const DAY = 1000

describe('offerTimers', () => {
  it('follows up every two days, three times, and closes at day seven by default', () => {
    const timers = offerTimers(10_000, DEFAULT_LEAD_POLICY, DAY)
    expect(timers.followUpsAt).toEqual([12_000, 14_000, 16_000])
    expect(timers.respondBy).toBe(17_000)
  })

  it('drops follow-ups that would fall at or after the close', () => {
    const timers = offerTimers(0, leadPolicyOf({ followUpEveryDays: 3, maxFollowUps: 5, respondWithinDays: 9 }), DAY)
    expect(timers.followUpsAt).toEqual([3000, 6000])
    expect(timers.respondBy).toBe(9000)
  })

  it('uses real days unless told otherwise', () => {
    expect(offerTimers(0, DEFAULT_LEAD_POLICY).respondBy).toBe(7 * 86_400_000)
  })
})

describe('nextOfferStep', () => {
  const timers = offerTimers(0, DEFAULT_LEAD_POLICY, DAY)
  it('numbers follow-ups from one', () => {
    expect(nextOfferStep(timers, 0)).toEqual({ followUp: { n: 1, at: 2000 }, respondBy: 7000 })
    expect(nextOfferStep(timers, 2)).toEqual({ followUp: { n: 3, at: 6000 }, respondBy: 7000 })
  })
  it('has none left once all went out', () => {
    expect(nextOfferStep(timers, 3)).toEqual({ followUp: null, respondBy: 7000 })
  })
})
