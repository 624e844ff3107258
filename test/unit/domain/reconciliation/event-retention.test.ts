/**
 * How far back the processor's events reach (domain/reconciliation/event-retention.ts): the part of a window that
 * Stripe keeps no events of, checked by listing alone.
 */
import { describe, expect, it } from 'vitest'
import { eventsUnavailableBefore } from '../../../../domain/reconciliation/event-retention.ts'

const now = new Date('2026-11-21T10:00:00Z')
const daysAgo = (days: number) => new Date(now.getTime() - days * 86_400_000)

describe('eventsUnavailableBefore', () => {
  it('is undefined for a window the events cover, even one starting exactly 30 days ago', () => {
    expect(eventsUnavailableBefore({ from: daysAgo(2), to: now }, now)).toBeUndefined()
    expect(eventsUnavailableBefore({ from: daysAgo(30), to: daysAgo(1) }, now)).toBeUndefined()
  })

  it('is 30 days ago for a window starting before it, and the window’s end for one wholly before it', () => {
    expect(eventsUnavailableBefore({ from: daysAgo(40), to: daysAgo(20) }, now)).toEqual(daysAgo(30))
    expect(eventsUnavailableBefore({ from: daysAgo(45), to: daysAgo(35) }, now)).toEqual(daysAgo(35))
  })
})
