/**
 * The walk of one delivery through domain/webhooks (docs/webhooks.md, "The walk of a delivery") goes down and never
 * climbs back up: the pump (or the retry workflow's step) calls its parts, they call the three steps — claim, attempt,
 * record — and the steps pass each other data from modules of their own, never importing one another. A module the
 * walk reaches must be placed in a level here, so a new one is placed on purpose.
 */
import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'

const ROOM = new URL('../../../../domain/webhooks/', import.meta.url)

/** Each module the walk reaches, by level: an import may only go to a lower level (a higher number), or stay within its step. */
const LEVELS: Record<string, { level: number; step?: string }> = {
  // Where a delivery's walk starts: the pump's run, and the failing endpoint's retry step.
  'delivery-pump': { level: 0 },
  'endpoint-retry': { level: 0 },
  // The pump's own parts: its slots, its waits, its look at failing endpoints.
  'pump-slots': { level: 1 },
  'pump-pauses': { level: 1 },
  'retry-check': { level: 1 },
  // The three steps.
  'delivery-queue': { level: 2, step: 'claim' },
  'endpoint-secrets': { level: 2, step: 'claim' },
  subscriptions: { level: 2, step: 'claim' },
  'attempt-delivery': { level: 2, step: 'attempt' },
  'attempt-outcome': { level: 2, step: 'attempt' },
  'record-batch': { level: 2, step: 'record' },
  'attempt-records': { level: 2, step: 'record' },
  'endpoint-health': { level: 2, step: 'record' },
  'endpoint-status': { level: 2, step: 'record' },
  'held-deliveries': { level: 2, step: 'record' },
  // What the steps hand each other, and the pure parts more than one uses.
  'queued-delivery': { level: 3 },
  'attempt-record': { level: 3 },
  'delivery-endpoint': { level: 3 },
  'sign-delivery': { level: 3 },
  'webhook-secrets': { level: 3 },
  'post-webhook': { level: 3 },
  'webhook-settings': { level: 3 },
}

/** The modules of the room `name` imports (relative imports only: other rooms are below this one). */
const importsOf = (name: string) =>
  [...readFileSync(new URL(`${name}.ts`, ROOM), 'utf8').matchAll(/from '\.\/([a-z-]+)\.ts'/g)].map((m) => m[1]!)

/** Every module reachable from the walk's starts, with what it imports. */
function walk(): Map<string, string[]> {
  const seen = new Map<string, string[]>()
  const queue = ['delivery-pump', 'endpoint-retry']
  while (queue.length > 0) {
    const name = queue.shift()!
    if (seen.has(name)) continue
    const imports = importsOf(name)
    seen.set(name, imports)
    queue.push(...imports)
  }
  return seen
}

/** The imports that climb back up: to a higher level, or sideways into another step or part. */
function climbs(graph: Map<string, string[]>): string[] {
  const found: string[] = []
  for (const [from, imports] of graph) {
    const a = LEVELS[from]!
    for (const to of new Set(imports)) {
      const b = LEVELS[to]!
      const down = b.level > a.level
      const withinStep = a.step !== undefined && a.step === b.step
      const shared = a.level === 3 && b.level === 3
      if (!down && !withinStep && !shared) found.push(`${from} → ${to}`)
    }
  }
  return found
}

describe('the walk of a delivery', () => {
  it('reaches only modules placed in a level', () => {
    const unplaced = [...walk().keys()].filter((name) => !(name in LEVELS))
    expect(unplaced, 'place each in LEVELS (and in docs/webhooks.md, "The walk of a delivery")').toEqual([])
  })

  it('goes down and never climbs back up', () => {
    expect(climbs(walk())).toEqual([])
  })

  it('is told a climb when it sees one', () => {
    const graph = walk()
    graph.set('attempt-delivery', [...graph.get('attempt-delivery')!, 'delivery-queue', 'delivery-pump'])
    expect(climbs(graph)).toEqual(['attempt-delivery → delivery-queue', 'attempt-delivery → delivery-pump'])
  })
})
