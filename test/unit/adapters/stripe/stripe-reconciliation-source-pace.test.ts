/**
 * The reconciliation's reads at Stripe take their tenant's turn first (issue 76): every list page and every retrieve
 * waits for `pace(tenantId)`, so a tenant's share of the platform's Stripe rate is its own, and the pacer's per-key turns
 * keep a tenant paging a busy account from delaying another's reads. A tiny server stands in for Stripe's list and
 * search endpoints (pages of one object each, so a list takes several pages).
 */
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { PLATFORM_READS, stripeReconciliationSource } from '../../../../adapters/stripe/stripe-reconciliation-source.ts'
import { createPacer } from '../../../../infra/pacer.ts'

/** Objects each list endpoint holds; one per page. */
const PER_LIST = 3
let server: Server
let apiBase: string
const requests: string[] = []

beforeAll(async () => {
  server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://stripe')
    requests.push(url.pathname)
    // A search pages by its `next_page` token, a list by the last object's id: both end in the page's index here.
    const search = url.pathname.endsWith('/search')
    const after = url.searchParams.get(search ? 'page' : 'starting_after')
    const index = after === null ? 0 : Number(after.split('_').at(-1)) + 1
    const kind = url.pathname.split('/')[2]!
    const more = index + 1 < PER_LIST
    // The intents a search finds are the searched tenant's, paid: each one's refunds and disputes are lists too.
    const searched = /metadata\['tenant_id'\]:'(\w+)'/.exec(url.searchParams.get('query') ?? '')?.[1]
    res.setHeader('content-type', 'application/json')
    res.end(
      JSON.stringify({
        object: search ? 'search_result' : 'list',
        url: url.pathname,
        has_more: more,
        ...(search && { next_page: more ? `page_${index}` : null }),
        // Else another tenant's objects: the source drops them, and they are all it sees.
        data: [
          {
            id: `${kind}_${index}`,
            object: kind,
            created: 1,
            amount: 100,
            currency: 'usd',
            status: 'succeeded',
            metadata: { tenant_id: searched ?? 'tnt_other' },
            // What an event carries.
            data: { object: { id: 'pi_1', object: 'payment_intent', metadata: { tenant_id: 'tnt_other' } } },
          },
        ],
      })
    )
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  apiBase = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
}, 10_000)

afterAll(async () => {
  await new Promise((resolve) => server.close(resolve))
})

const window = { from: new Date(0), to: new Date(10_000) }
const [tenantA, tenantB] = ['ten_0000000000007000800000000000000a', 'ten_0000000000007000800000000000000b']
/** The tenant's connected accounts: the transfers of each are one list. */
const scope = { connectedAccounts: ['acct_1', 'acct_2'] }

describe("the reconciliation's Stripe reads", () => {
  it("take the tenant's turn before every page", async () => {
    const turns: string[] = []
    const source = stripeReconciliationSource({ secretKey: 'sk_test_x', apiBase }, async (tenantId) => {
      turns.push(tenantId)
    })
    requests.length = 0
    await source.list(tenantA, window, scope)
    // The search, the refunds and disputes of each of the three intents it found, the transfers of each account,
    // three pages each; one turn per request, all of them the tenant's.
    expect(requests).toHaveLength((1 + 2 * PER_LIST + scope.connectedAccounts.length) * PER_LIST)
    expect(turns).toEqual(requests.map(() => tenantA))
    // The events are the platform's reads (read once for every tenant, processor-event-index.ts), at its own pace.
    turns.length = 0
    await source.eachEventPage!(window, async () => undefined)
    expect(turns).toEqual([PLATFORM_READS, PLATFORM_READS, PLATFORM_READS])
  })

  it("never search for a value that is not a tenant id (it goes into Stripe's query language)", async () => {
    const source = stripeReconciliationSource({ secretKey: 'sk_test_x', apiBase })
    requests.length = 0
    for (const tenantId of [`${tenantA}' OR metadata['tenant_id']:'${tenantB}`, 'ten_a', '']) {
      await expect(source.list(tenantId, window, scope)).rejects.toThrow(/Not a tenant id/)
    }
    expect(requests).toEqual([])
  })

  it("keep a tenant over its share waiting, and another tenant's reads not", async () => {
    const pacer = createPacer({
      perSecond: 20,
      burst: 1,
      maxWaitMs: 60_000,
      what: 'reads',
      refuse: (_s, detail) => new Error(detail),
    })
    const source = stripeReconciliationSource({ secretKey: 'sk_test_x', apiBase }, (tenantId) => pacer.take(tenantId))
    const started = performance.now()
    const busy = source.list(tenantA, window, scope).then(() => performance.now() - started)
    const other = source.eachEventPage!(window, async () => undefined).then(() => performance.now() - started)
    const [busyMs, otherMs] = await Promise.all([busy, other])
    // A's 27 requests at 20 a second take at least 26 intervals (1.3 s); the platform's three, its own turns, far less.
    expect(busyMs).toBeGreaterThanOrEqual(1_250)
    expect(otherMs).toBeLessThan(busyMs / 2)
  })
})
