/**
 * @module Stripe's official API mock (stripe-mock, built once from the Go module proxy and cached outside the clone by
 * scripts/stripe/obtain-stripe-mock.sh), started for one test file, behind a small recording proxy: the API under
 * test talks to the proxy, which passes every request on to stripe-mock and keeps what was sent (method, path,
 * Idempotency-Key, form body), and which can play an unreachable Stripe (`down`) or a slow one (`holding`).
 *
 * stripe-mock validates each request against Stripe's own OpenAPI description and answers Stripe's response shapes,
 * but keeps no state. The proxy models what Stripe would hold: the payment intents, refunds and transfers created
 * through it (amount, currency and metadata from the request; the id stripe-mock answered, a fresh one should it
 * repeat one; a request repeating an Idempotency-Key gets the first answer again, as from Stripe), what tests make at
 * "Stripe" directly (`seed`, `addRefund`, `addDispute`: the Dashboard, a card issuer) and what happens there later
 * (`setIntentStatus`, `reverseTransfer`...). It answers the list endpoints of payment intents, refunds, disputes,
 * transfers and events (each {@link StripeMock.event} made, whether a test delivered it or not) from that model
 * (`created[gte]`/`[lt]`, `payment_intent`, `destination`, `limit`, `starting_after`, `expand[]=data.payment_intent`);
 * the search of payment intents (`GET /v1/payment_intents/search`) in the query shapes the reconciliation sends
 * (`metadata['key']:'value'`, `created>=N`, `created<N`, joined by ` AND `; any other query is refused with a 400,
 * so a malformed one fails loudly), paged by `page` and `next_page` as Stripe's are, and unlike Stripe's at once
 * (Stripe's search lags changes by up to a minute); and
 * a transfer's reversals (`/v1/transfers/{id}/reversals`; the transfer embeds the ten most recent, with `has_more`, as
 * Stripe's does), and retrieves the objects it holds; anything else is stripe-mock's answer, as before. An intent that
 * succeeds (`setIntentStatus`) gets a charge (`latest_charge`) whose balance transaction carries Stripe's processing
 * fee (2.9% + 30 in the model), expanded as Stripe expands it (`latest_charge.balance_transaction`).
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { createServer, request as httpRequest, type IncomingHttpHeaders, type Server } from 'node:http'
import net, { type AddressInfo } from 'node:net'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { fromStripeAmount } from '../../adapters/stripe/stripe-currencies.ts'

export interface StripeRequest {
  method: string
  path: string
  idempotencyKey: string | undefined
  /** The form-encoded body, decoded (`metadata[payment_id]` and so on as keys). */
  form: Record<string, string>
  status: number
}

/** The kinds of object the model holds, by the `object` Stripe gives them. */
export type StripeObjectType = 'payment_intent' | 'refund' | 'dispute' | 'transfer' | 'account' | 'event'

/** An object as Stripe answers it: its id, type, `created` (Unix seconds) and whatever else it carries. */
export type StripeObject = Record<string, unknown> & {
  id: string
  object: StripeObjectType
  created: number
  amount: number
  currency: string
  metadata: Record<string, string>
}

export interface StripeMock {
  /** What the API's STRIPE_API_BASE should be. */
  url: string
  requests: StripeRequest[]
  /** While true, every connection is dropped before any answer: Stripe unreachable. */
  down: boolean
  /** Requests whose path starts with this wait, unanswered, until {@link StripeMock.release} (a slow Stripe). */
  holding: string | undefined
  /** Lets the held requests through and stops holding. */
  release(): void
  /**
   * Stripe refuses the next request whose path starts with `path` with a 400 `invalid_request_error` carrying `code`,
   * `param` and `message`, before stripe-mock sees it (Stripe's own limits, which stripe-mock does not apply: its
   * minimum and maximum charge, the currencies an account takes).
   */
  refuseNext(path: string, error: { code?: string; param?: string; message: string }): void
  stop(): Promise<void>
  /** The objects Stripe holds (of one type), oldest first. */
  objects(type?: StripeObjectType): StripeObject[]
  /** One object Stripe holds. @throws when it holds none with that id */
  get(id: string): StripeObject
  /**
   * Makes an object at Stripe directly, not through the API under test (an intent made by another system, a
   * transfer from the Dashboard). Defaults: a fresh id, created now, `usd`, no metadata, the type's first status.
   */
  seed(object: Partial<StripeObject> & { object: StripeObjectType }): StripeObject
  /** Changes an object's fields at Stripe (an amount, to make a mismatch). */
  update(id: string, fields: Record<string, unknown>): StripeObject
  /** Stripe forgets the object: listed nowhere, retrieving it answers 404 `resource_missing`. */
  remove(id: string): void
  /**
   * What the payer or Stripe did to an intent: `succeeded` (amount received), `canceled`, `processing`..., or
   * `requires_payment_method` with the failed attempt's error.
   */
  setIntentStatus(id: string, status: string, lastPaymentError?: Record<string, string>): StripeObject
  setRefundStatus(id: string, status: string): StripeObject
  /** A refund made in the Stripe Dashboard: the intent's currency, all of its amount unless given, no metadata. */
  addRefund(refund: {
    paymentIntent: string
    amount?: number
    status?: string
    metadata?: Record<string, string>
  }): StripeObject
  /**
   * The platform account's balance keeps `currency` from now on (null: each object's own): Stripe converts every
   * charge and refund made after it at `rate` (the object's currency to the balance's, both of two decimals here), and
   * their balance transactions say what moved in it (issue 58, FX); a transfer in another currency is refused
   * (`balance_insufficient`), as the balance holds none of it (issue 78).
   */
  settleIn(balance: { currency: string; rate: number } | null): void
  /** A payer's dispute of an intent (`needs_response` unless given). */
  addDispute(dispute: { paymentIntent: string; amount?: number; status?: string }): StripeObject
  /**
   * Stripe takes back `amount` of a transfer (all that is left unless given), as a reversal carrying `metadata` (the
   * platform's own reason, such as `purpose: recovery`), listed in the transfer's `reversals` (the ten most recent)
   * and at `/v1/transfers/{id}/reversals`.
   */
  reverseTransfer(id: string, amount?: number, metadata?: Record<string, string>): StripeObject
  /** A Stripe event about an object as Stripe now holds it, to deliver to the API (signed by the test). */
  event(
    type: string,
    id: string
  ): { id: string; object: 'event'; type: string; created: number; livemode: false; data: { object: StripeObject } }
}

const obtainScript = fileURLToPath(new URL('../../scripts/stripe/obtain-stripe-mock.sh', import.meta.url))

/** Two distinct free ports: both listeners are held until both are known, so the OS cannot hand out one twice. */
async function twoFreePorts(): Promise<[number, number]> {
  const servers = [net.createServer(), net.createServer()]
  await Promise.all(servers.map((server) => new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))))
  const ports = servers.map((server) => (server.address() as AddressInfo).port)
  await Promise.all(servers.map((server) => new Promise((resolve) => server.close(resolve))))
  return [ports[0]!, ports[1]!]
}

/** Resolves true once the port accepts connections, false if stripe-mock exited first (its port was taken). */
async function waitForPort(port: number, child: ChildProcess): Promise<boolean> {
  for (let i = 0; i < 100; i++) {
    if (child.exitCode !== null) return false
    const open = await new Promise<boolean>((resolve) => {
      const socket = net.connect(port, '127.0.0.1')
      socket.once('connect', () => (socket.destroy(), resolve(true)))
      socket.once('error', () => resolve(false))
    })
    if (open) return true
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
  throw new Error('stripe-mock did not listen within 10 s')
}

/** Starts stripe-mock and its recording proxy. */
export async function startStripeMock(): Promise<StripeMock> {
  const { stdout } = await promisify(execFile)('bash', [obtainScript], { timeout: 600_000 })
  const binary = stdout.trim()
  // Another test file may bind a port between our choosing it and stripe-mock binding it: choose again.
  let child: ChildProcess | undefined
  let httpPort = 0
  let stderr = ''
  for (let attempt = 0; attempt < 5 && !child; attempt++) {
    const [http, https] = await twoFreePorts()
    const started = spawn(binary, ['-http-port', String(http), '-https-port', String(https)], {
      stdio: ['ignore', 'ignore', 'pipe'],
    })
    stderr = ''
    started.stderr.on('data', (chunk: Buffer) => (stderr = (stderr + chunk.toString()).slice(-2000)))
    if (await waitForPort(http, started)) [child, httpPort] = [started, http]
  }
  if (!child) throw new Error(`stripe-mock exited on five pairs of ports; it last said: ${stderr}`)

  const requests: StripeRequest[] = []
  const model = stripeModel()
  let held: Array<() => void> = []
  const refusals: Array<{ path: string; error: { code?: string; param?: string; message: string } }> = []
  const mock: Pick<StripeMock, 'down' | 'holding' | 'release' | 'refuseNext'> = {
    down: false,
    holding: undefined,
    release() {
      mock.holding = undefined
      for (const go of held.splice(0)) go()
    },
    refuseNext(path, error) {
      refusals.push({ path, error })
    },
  }
  const proxy: Server = createServer((req, res) => {
    if (mock.down) {
      req.socket.destroy()
      return
    }
    const chunks: Buffer[] = []
    req.on('data', (chunk: Buffer) => chunks.push(chunk))
    req.on('end', () => {
      const body = Buffer.concat(chunks)
      const entry: StripeRequest = {
        method: req.method ?? 'GET',
        path: req.url ?? '/',
        idempotencyKey: req.headers['idempotency-key'] as string | undefined,
        form: Object.fromEntries(new URLSearchParams(body.toString('utf8'))),
        status: 0,
      }
      requests.push(entry)
      const refusal = refusals.findIndex((r) => entry.path.startsWith(r.path))
      if (refusal >= 0) {
        const [{ error }] = refusals.splice(refusal, 1) as [(typeof refusals)[number]]
        const refused = Buffer.from(JSON.stringify({ error: { type: 'invalid_request_error', ...error } }))
        entry.status = 400
        res.writeHead(400, { 'Content-Type': 'application/json', 'Content-Length': refused.length })
        res.end(refused)
        return
      }
      const forward = () => {
        const upstream = httpRequest(
          { host: '127.0.0.1', port: httpPort, method: req.method, path: req.url, headers: req.headers },
          (answer) => {
            const parts: Buffer[] = []
            answer.on('data', (part: Buffer) => parts.push(part))
            answer.on('end', () => {
              // stripe-mock validated the request and answered its shape; the model answers what Stripe would hold.
              const modelled = model.answer(entry, { status: answer.statusCode ?? 502, body: Buffer.concat(parts) })
              entry.status = modelled.status
              res.writeHead(modelled.status, withLength(answer.headers, modelled.body.length))
              res.end(modelled.body)
            })
            answer.on('error', () => res.destroy())
          }
        )
        upstream.on('error', () => res.destroy())
        upstream.end(body)
      }
      if (mock.holding !== undefined && entry.path.startsWith(mock.holding)) held.push(forward)
      else forward()
    })
  })
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve))
  const { port } = proxy.address() as AddressInfo
  return Object.assign(mock, model.controls, {
    url: `http://127.0.0.1:${port}`,
    requests,
    async stop() {
      held = []
      proxy.closeAllConnections()
      await new Promise((resolve) => proxy.close(resolve))
      child.kill('SIGTERM')
    },
  })
}

function withLength(headers: IncomingHttpHeaders, length: number): IncomingHttpHeaders {
  const { 'content-length': _length, 'transfer-encoding': _encoding, ...rest } = headers
  return { ...rest, 'content-length': String(length) }
}

/** The list endpoints answered from the model, and the object type each holds. */
const COLLECTIONS: Record<string, StripeObjectType> = {
  payment_intents: 'payment_intent',
  refunds: 'refund',
  disputes: 'dispute',
  transfers: 'transfer',
  accounts: 'account',
  events: 'event',
}
const PREFIXES: Record<StripeObjectType, string> = {
  payment_intent: 'pi',
  refund: 're',
  dispute: 'dp',
  transfer: 'tr',
  account: 'acct',
  event: 'evt',
}
const FIRST_STATUS: Record<StripeObjectType, string | undefined> = {
  payment_intent: 'requires_payment_method',
  refund: 'succeeded',
  dispute: 'needs_response',
  transfer: undefined,
  account: undefined,
  event: undefined,
}

const now = () => Math.floor(Date.now() / 1000)
const freshId = (type: StripeObjectType) => `${PREFIXES[type]}_${randomBytes(12).toString('hex')}`
const json = (status: number, value: unknown) => ({ status, body: Buffer.from(JSON.stringify(value)) })
const missing = (type: string, id: string) =>
  json(404, {
    error: { code: 'resource_missing', message: `No such ${type}: '${id}'`, type: 'invalid_request_error' },
  })
/** `metadata[key]` entries of a form or query. */
const metadataOf = (form: Record<string, string>) =>
  Object.fromEntries(
    Object.entries(form)
      .map(([key, value]) => [/^metadata\[(.+)\]$/.exec(key)?.[1], value] as const)
      .filter((pair): pair is readonly [string, string] => pair[0] !== undefined)
  )

/** Stripe's state as the proxy models it. */
function stripeModel() {
  const objects = new Map<string, StripeObject>()
  const removed = new Set<string>()
  const replies = new Map<string, { status: number; body: Buffer }>()
  /**
   * The charge of each intent that succeeded (`latest_charge`), with its balance transaction: the amount, Stripe's
   * processing fee and the net, in the intent's currency (issue 58).
   */
  const charges = new Map<string, Record<string, unknown> & { id: string; balance_transaction: { id: string } }>()
  /** Each refund's balance transaction, by the refund's id: expanded when asked (`balance_transaction`). */
  const refundMoves = new Map<string, Record<string, unknown> & { id: string }>()
  /** The currency the balance keeps, when the test made Stripe convert (settleIn). */
  let balance: { currency: string; rate: number } | null = null
  /** A balance transaction of `amount` in `currency` (Stripe units), converted to the balance's if it keeps another. */
  const balanceMove = (
    type: string,
    amount: number,
    currency: string,
    fee: (amount: number, currency: string) => number
  ) => {
    const converted = balance?.currency === currency ? null : balance
    const moved = converted ? Math.round(amount * converted.rate) : amount
    const kept = converted?.currency ?? currency
    const charged = fee(moved, kept)
    return {
      id: `txn_${randomBytes(12).toString('hex')}`,
      object: 'balance_transaction',
      amount: moved,
      fee: charged,
      net: moved - charged,
      currency: kept,
      exchange_rate: converted?.rate ?? null,
      type,
    }
  }
  /** A refund with its balance transaction as Stripe sends it: the object when asked to expand it, else its id. */
  const withMove = (object: StripeObject, fields: string[]) => {
    const move = object.object === 'refund' ? refundMoves.get(object.id) : undefined
    if (!move) return object
    const asked = fields.some((f) => f.replace(/^data\./, '') === 'balance_transaction')
    return { ...object, balance_transaction: asked ? move : move.id }
  }
  /** Every reversal of each transfer, newest first; the transfer itself embeds the first page, as Stripe's does. */
  const reversals = new Map<string, Array<{ id: string } & Record<string, unknown>>>()
  const reversalsOf = (transferId: string) => reversals.get(transferId) ?? []

  const put = (object: StripeObject) => {
    objects.set(object.id, object)
    return object
  }
  const get = (id: string) => {
    const object = objects.get(id)
    if (!object) throw new Error(`stripe-mock holds no object ${id}`)
    return object
  }
  /** The intent's chargeback (a dispute that withdrew its funds and was not won), if it has one. */
  const chargebackOf = (intentId: string) =>
    [...objects.values()].find(
      (o) =>
        o.object === 'dispute' &&
        o.payment_intent === intentId &&
        ['needs_response', 'under_review', 'lost'].includes(String(o.status))
    )
  /** An object with `payment_intent` replaced by the intent itself, when asked to expand it and the intent is held. */
  const expanded = (object: StripeObject, expand: boolean) => {
    const intent = typeof object.payment_intent === 'string' ? objects.get(object.payment_intent) : undefined
    return expand && intent ? { ...object, payment_intent: intent } : object
  }
  /**
   * An intent with its charge expanded when asked (`latest_charge`, `latest_charge.balance_transaction`; a list's
   * fields start with `data.`), as Stripe expands it.
   */
  const withCharge = (object: StripeObject, fields: string[]) => {
    const charge = typeof object.latest_charge === 'string' ? charges.get(object.latest_charge) : undefined
    const asked = fields.map((f) => f.replace(/^data\./, ''))
    if (!charge || !asked.some((f) => f === 'latest_charge' || f.startsWith('latest_charge.'))) return object
    const deep = asked.includes('latest_charge.balance_transaction')
    return {
      ...object,
      latest_charge: deep ? charge : { ...charge, balance_transaction: charge.balance_transaction.id },
    }
  }
  /** The fields a request asks to expand (`expand[]`, `expand[0]`... in its query or form). */
  const expansions = (entries: Iterable<[string, string]>) =>
    [...entries].filter(([key]) => key.startsWith('expand')).map(([, value]) => value)
  /**
   * Stripe's processing fee in the model: 2.9% + 30 of the currency's Stripe units, never more than the amount, in
   * whole units where Stripe's amounts must be (ISK's end in 00).
   */
  const processingFee = (amount: number, currency: string) => {
    const whole = fromStripeAmount(100, currency) === 1 ? 100 : 1
    return Math.floor(Math.min(amount, Math.round(amount * 0.029) + 30) / whole) * whole
  }
  /** The charge of an intent that succeeded, made once, with its balance transaction. */
  const chargeOf = (intent: StripeObject) => {
    if (typeof intent.latest_charge === 'string') return
    const charge = {
      id: `ch_${randomBytes(12).toString('hex')}`,
      object: 'charge',
      amount: intent.amount,
      currency: intent.currency,
      payment_intent: intent.id,
      balance_transaction: balanceMove('charge', intent.amount, intent.currency, processingFee),
    }
    charges.set(charge.id, charge)
    intent.latest_charge = charge.id
  }

  /** A create answered by stripe-mock, as Stripe would hold it: the request's amounts and metadata, a unique id. */
  function created(type: StripeObjectType, form: Record<string, string>, answered: Record<string, unknown>) {
    const id = typeof answered.id === 'string' && !objects.has(answered.id) ? answered.id : freshId(type)
    const intent = type === 'refund' && form.payment_intent ? objects.get(form.payment_intent) : undefined
    const object: StripeObject = {
      ...answered,
      id,
      object: type,
      created: now(),
      amount: form.amount ? Number(form.amount) : (intent?.amount ?? Number(answered.amount)),
      currency: (form.currency ?? intent?.currency ?? String(answered.currency)).toLowerCase(),
      metadata: metadataOf(form),
    }
    if (type === 'payment_intent') {
      Object.assign(object, {
        client_secret: `${id}_secret_${randomBytes(8).toString('hex')}`,
        last_payment_error: null,
      })
    }
    if (type === 'refund') {
      object.payment_intent = form.payment_intent ?? null
      refundMoves.set(
        id,
        balanceMove('refund', -object.amount, object.currency, () => 0)
      )
    }
    if (type === 'transfer')
      Object.assign(object, { amount_reversed: 0, reversed: false, destination: form.destination })
    return put(object)
  }

  /**
   * A list page, newest first, as Stripe pages: `created` filters, `payment_intent` (a charge's refunds or disputes),
   * `destination` (the transfers to one connected account), `starting_after`, `limit` (10, at most 100).
   */
  function list(collection: string, type: StripeObjectType, query: URLSearchParams) {
    const bound = (op: string) => (query.has(`created[${op}]`) ? Number(query.get(`created[${op}]`)) : undefined)
    const [gte, gt, lt, lte] = ['gte', 'gt', 'lt', 'lte'].map(bound)
    const intent = query.get('payment_intent')
    const destination = query.get('destination')
    const all = [...objects.values()]
      .filter((o) => o.object === type)
      .filter((o) => intent === null || o.payment_intent === intent)
      .filter((o) => destination === null || o.destination === destination)
      .filter((o) => (gte === undefined || o.created >= gte) && (gt === undefined || o.created > gt))
      .filter((o) => (lt === undefined || o.created < lt) && (lte === undefined || o.created <= lte))
      .reverse()
      .sort((a, b) => b.created - a.created)
    const expand = [...query.entries()].some(
      ([key, value]) => key.startsWith('expand') && value === 'data.payment_intent'
    )
    const fields = expansions(query.entries())
    return json(
      200,
      pageOf(all, query, `/v1/${collection}`, (o) => withMove(withCharge(expanded(o, expand), fields), fields))
    )
  }

  /**
   * A search of payment intents, newest first: every clause of the query must be one the reconciliation sends, and a
   * page token one this model answered (`page_<offset>`); anything else is a 400, as Stripe refuses a query it cannot
   * parse.
   */
  function search(query: URLSearchParams) {
    const refused = (message: string) =>
      json(400, { error: { type: 'invalid_request_error', code: 'parameter_invalid', param: 'query', message } })
    const tests: Array<(o: StripeObject) => boolean> = []
    for (const clause of (query.get('query') ?? '').split(' AND ')) {
      const metadata = /^metadata\['([A-Za-z0-9_]+)'\]:'([A-Za-z0-9_]*)'$/.exec(clause)
      const bound = /^created(>=|<)(\d+)$/.exec(clause)
      if (metadata) tests.push((o) => o.metadata[metadata[1]!] === metadata[2])
      else if (bound?.[1] === '>=') tests.push((o) => o.created >= Number(bound[2]))
      else if (bound) tests.push((o) => o.created < Number(bound[2]))
      else return refused(`The search query could not be parsed at: ${JSON.stringify(clause)}`)
    }
    const page = query.get('page')
    const offset = page === null ? 0 : Number(/^page_(\d+)$/.exec(page)?.[1] ?? NaN)
    if (!Number.isSafeInteger(offset)) return refused(`Not a page of this search: ${JSON.stringify(page)}`)
    const limit = Math.min(Number(query.get('limit') ?? 10), 100)
    const found = [...objects.values()]
      .filter((o) => o.object === 'payment_intent' && tests.every((test) => test(o)))
      .reverse()
      .sort((a, b) => b.created - a.created)
    const fields = expansions(query.entries())
    const more = offset + limit < found.length
    return json(200, {
      object: 'search_result',
      data: found.slice(offset, offset + limit).map((o) => withCharge(o, fields)),
      has_more: more,
      next_page: more ? `page_${offset + limit}` : null,
      url: '/v1/payment_intents/search',
    })
  }

  /** One page of `all` (newest first), after `starting_after`, of `limit` items (10, at most 100). */
  function pageOf<T extends { id: string }>(
    all: T[],
    query: URLSearchParams,
    url: string,
    show = (o: T): unknown => o
  ) {
    const after = query.get('starting_after')
    const start = after === null ? 0 : all.findIndex((o) => o.id === after) + 1
    const limit = Math.min(Number(query.get('limit') ?? 10), 100)
    return {
      object: 'list',
      data: all.slice(start, start + limit).map(show),
      has_more: start + limit < all.length,
      url,
    }
  }

  /** What the proxy answers for one request, given stripe-mock's answer. */
  function answer(request: StripeRequest, upstream: { status: number; body: Buffer }) {
    const url = new URL(request.path, 'http://stripe.invalid')
    const key =
      request.idempotencyKey === undefined ? undefined : `${request.method} ${url.pathname} ${request.idempotencyKey}`
    // Stripe answers a repeated key with the first answer (the first to complete, here).
    const replay = key === undefined ? undefined : replies.get(key)
    if (replay) return replay
    if (upstream.status >= 300) return upstream
    const reply = modelled(request, url, upstream) ?? upstream
    if (key !== undefined && request.method === 'POST') replies.set(key, reply)
    return reply
  }

  function modelled(request: StripeRequest, url: URL, upstream: { body: Buffer }) {
    const [, version, collection, id, action] = url.pathname.split('/')
    const type = collection === undefined ? undefined : COLLECTIONS[collection]
    if (version !== 'v1' || !type || collection === undefined) return undefined
    const expand = [...url.searchParams.entries()].some(([k, v]) => k.startsWith('expand') && v === 'payment_intent')
    if (request.method === 'GET' && id === undefined) return list(collection, type, url.searchParams)
    if (request.method === 'GET' && type === 'payment_intent' && id === 'search' && action === undefined) {
      return search(url.searchParams)
    }
    if (request.method === 'GET' && type === 'transfer' && id !== undefined && action === 'reversals') {
      return objects.has(id) ? json(200, pageOf(reversalsOf(id), url.searchParams, url.pathname)) : missing(type, id)
    }
    if (request.method === 'GET' && action === undefined && id !== undefined) {
      if (removed.has(id)) return missing(type, id)
      const held = objects.get(id)
      const fields = expansions(url.searchParams.entries())
      return held && json(200, withMove(withCharge(expanded(held, expand), fields), fields))
    }
    if (request.method !== 'POST') return undefined
    // Stripe refuses to refund a charge its payer's bank has charged back (`is_charge_refundable` false): the bank
    // holds or took that money, and the refund would give it back twice. An inquiry, or a dispute won, does not.
    const charged =
      type === 'refund' && request.form.payment_intent ? chargebackOf(request.form.payment_intent) : undefined
    if (id === undefined && charged) {
      return json(400, {
        error: {
          type: 'invalid_request_error',
          code: 'charge_disputed',
          message: `Charge for ${String(charged.payment_intent)} has been charged back; cannot issue a refund.`,
        },
      })
    }
    // A balance that keeps another currency holds nothing in the charged one: Stripe refuses a transfer from it.
    const from = type === 'transfer' ? request.form.currency?.toLowerCase() : undefined
    if (id === undefined && balance && from !== undefined && from !== balance.currency) {
      return json(400, {
        error: {
          type: 'invalid_request_error',
          code: 'balance_insufficient',
          message: `You have insufficient available funds in your Stripe account (${from.toUpperCase()}).`,
        },
      })
    }
    // Disputes are opened by payers' banks, and connected accounts are answered by stripe-mock until a test seeds one.
    if (id === undefined && type !== 'dispute' && type !== 'account' && type !== 'event') {
      const object = created(type, request.form, JSON.parse(upstream.body.toString('utf8')) as Record<string, unknown>)
      return json(200, withMove(object, expansions(Object.entries(request.form))))
    }
    const held = id === undefined ? undefined : objects.get(id)
    if (!held) return undefined
    if (action === 'cancel') {
      Object.assign(held, { status: 'canceled', canceled_at: now() })
      return json(200, withCharge(held, expansions(Object.entries(request.form))))
    }
    if (action === 'reversals' && type === 'transfer') {
      const amount = request.form.amount === undefined ? undefined : Number(request.form.amount)
      controls.reverseTransfer(held.id, amount, metadataOf(request.form))
      const reversal = JSON.parse(upstream.body.toString('utf8')) as Record<string, unknown>
      return json(200, { ...reversal, amount: amount ?? held.amount, currency: held.currency, transfer: held.id })
    }
    return undefined
  }

  const controls = {
    objects: (type?: StripeObjectType) => [...objects.values()].filter((o) => type === undefined || o.object === type),
    get,
    seed(object: Partial<StripeObject> & { object: StripeObjectType }): StripeObject {
      const status = FIRST_STATUS[object.object]
      return put({
        amount: 0,
        currency: 'usd',
        metadata: {},
        livemode: false,
        ...(status ? { status } : {}),
        ...(object.object === 'transfer' ? { amount_reversed: 0, reversed: false } : {}),
        ...(object.object === 'payment_intent' ? { last_payment_error: null } : {}),
        ...object,
        id: object.id ?? freshId(object.object),
        created: object.created ?? now(),
      })
    },
    update: (id: string, fields: Record<string, unknown>) => Object.assign(get(id), fields),
    remove(id: string) {
      objects.delete(id)
      removed.add(id)
    },
    setIntentStatus(id: string, status: string, lastPaymentError?: Record<string, string>) {
      const intent = get(id)
      if (status === 'succeeded') chargeOf(intent)
      return Object.assign(intent, {
        status,
        last_payment_error: lastPaymentError ?? null,
        amount_received: status === 'succeeded' ? intent.amount : 0,
        ...(status === 'canceled' ? { canceled_at: now() } : {}),
      })
    },
    setRefundStatus: (id: string, status: string) => Object.assign(get(id), { status }),
    settleIn(kept: { currency: string; rate: number } | null) {
      balance = kept && { ...kept, currency: kept.currency.toLowerCase() }
    },
    addRefund(refund: { paymentIntent: string; amount?: number; status?: string; metadata?: Record<string, string> }) {
      const intent = get(refund.paymentIntent)
      const amount = refund.amount ?? intent.amount
      const seeded = controls.seed({
        object: 'refund',
        payment_intent: intent.id,
        amount,
        currency: intent.currency,
        status: refund.status ?? 'succeeded',
        metadata: refund.metadata ?? {},
      })
      refundMoves.set(
        seeded.id,
        balanceMove('refund', -amount, intent.currency, () => 0)
      )
      return seeded
    },
    addDispute(dispute: { paymentIntent: string; amount?: number; status?: string }) {
      const intent = get(dispute.paymentIntent)
      return controls.seed({
        object: 'dispute',
        payment_intent: intent.id,
        amount: dispute.amount ?? intent.amount,
        currency: intent.currency,
        status: dispute.status ?? 'needs_response',
        reason: 'fraudulent',
      })
    },
    reverseTransfer(id: string, amount?: number, metadata: Record<string, string> = {}) {
      const transfer = get(id)
      const taken = amount ?? transfer.amount - Number(transfer.amount_reversed ?? 0)
      const reversed = Number(transfer.amount_reversed ?? 0) + taken
      const reversal = { id: freshId('transfer').replace('tr_', 'trr_'), object: 'transfer_reversal', amount: taken }
      const all = [
        { ...reversal, currency: transfer.currency, transfer: id, metadata, created: now() },
        ...reversalsOf(id),
      ]
      reversals.set(id, all)
      return Object.assign(transfer, {
        amount_reversed: reversed,
        reversed: reversed >= transfer.amount,
        // Stripe embeds the ten most recent; `has_more` sends the reader to the transfer's reversals list.
        reversals: pageOf(all, new URLSearchParams(), `/v1/transfers/${id}/reversals`),
      })
    },
    event(type: string, id: string) {
      const event = {
        id: `evt_${randomBytes(12).toString('hex')}`,
        object: 'event' as const,
        type,
        created: now(),
        livemode: false as const,
        data: { object: structuredClone(get(id)) },
      }
      // Stripe lists the events it sent (`GET /v1/events`), delivered or not.
      put({ ...event, amount: 0, currency: 'usd', metadata: {} })
      return event
    },
  }
  return { answer, controls }
}
