/**
 * @module The figures of an analytics answer, and how they add up. Counts and amounts add exactly (integers; money
 * per currency), so a per-location breakdown sums to the totals; rates are never added: each is recomputed from
 * its added numerator and denominator.
 */

export interface MoneyByCurrency {
  currency: string
  amount: number
}

/** What is counted per location (before rates). */
export interface Counts {
  appointments: {
    total: number
    confirmed: number
    completed: number
    cancelled: number
    lateCancelled: number
    noShow: number
  }
  /** Milliseconds booked and available, of providers with weekly hours based at the location. */
  bookedMs: number
  availableMs: number
  capacityProviders: number
  newChildren: number
  assessments: { due: number; dueCompleted: number; completedInRange: number }
  collected: Map<string, number>
  refunded: Map<string, number>
  outstanding: Map<string, { amount: number; orders: number }>
}

export const emptyCounts = (): Counts => ({
  appointments: { total: 0, confirmed: 0, completed: 0, cancelled: 0, lateCancelled: 0, noShow: 0 },
  bookedMs: 0,
  availableMs: 0,
  capacityProviders: 0,
  newChildren: 0,
  assessments: { due: 0, dueCompleted: 0, completedInRange: 0 },
  collected: new Map(),
  refunded: new Map(),
  outstanding: new Map(),
})

const addTo = (map: Map<string, number>, key: string, value: number) => map.set(key, (map.get(key) ?? 0) + value)

/** Adds `b` into `a` (in place) and returns `a`. */
export function addCounts(a: Counts, b: Counts): Counts {
  for (const key of Object.keys(a.appointments) as Array<keyof Counts['appointments']>)
    a.appointments[key] += b.appointments[key]
  a.bookedMs += b.bookedMs
  a.availableMs += b.availableMs
  a.capacityProviders += b.capacityProviders
  a.newChildren += b.newChildren
  a.assessments.due += b.assessments.due
  a.assessments.dueCompleted += b.assessments.dueCompleted
  a.assessments.completedInRange += b.assessments.completedInRange
  for (const [c, v] of b.collected) addTo(a.collected, c, v)
  for (const [c, v] of b.refunded) addTo(a.refunded, c, v)
  for (const [c, v] of b.outstanding) {
    const o = a.outstanding.get(c) ?? { amount: 0, orders: 0 }
    a.outstanding.set(c, { amount: o.amount + v.amount, orders: o.orders + v.orders })
  }
  return a
}

/** A ratio to four decimals, or null when there is nothing to divide by. */
export const ratio = (numerator: number, denominator: number): number | null =>
  denominator === 0 ? null : Math.round((numerator / denominator) * 10_000) / 10_000

const minutes = (ms: number) => ms / 60_000

/** The answer's form of the counts: rates computed, money per currency in code order. */
export function toMetrics(c: Counts) {
  const currencies = [...new Set([...c.collected.keys(), ...c.refunded.keys()])].sort()
  const a = c.appointments
  return {
    appointments: { ...a },
    cancellationRate: ratio(a.cancelled, a.total),
    noShowRate: ratio(a.noShow, a.completed + a.noShow),
    utilisation: {
      bookedMinutes: minutes(c.bookedMs),
      availableMinutes: minutes(c.availableMs),
      ratio: ratio(c.bookedMs, c.availableMs),
      providers: c.capacityProviders,
    },
    newChildren: c.newChildren,
    assessments: {
      due: c.assessments.due,
      completed: c.assessments.dueCompleted,
      completionRate: ratio(c.assessments.dueCompleted, c.assessments.due),
      completedInRange: c.assessments.completedInRange,
    },
    revenue: currencies.map((currency) => {
      const collected = c.collected.get(currency) ?? 0
      const refunded = c.refunded.get(currency) ?? 0
      return { currency, collected, refunded, net: collected - refunded }
    }),
    outstanding: [...c.outstanding.entries()]
      .sort(([x], [y]) => x.localeCompare(y))
      .map(([currency, o]) => ({ currency, amount: o.amount, orders: o.orders })),
  }
}

export type Metrics = ReturnType<typeof toMetrics>
