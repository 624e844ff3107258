/**
 * @module The client: typed requests keyed on the generated `paths`, the credentials and retry behaviour the API
 * asks of its clients, pagination, and namespaces for the main resources.
 *
 * @example
 * const api = new TherapyCareClient({ baseUrl, clientId, clientSecret, scope: 'children providers bookings' })
 * const appointment = await api.appointments.create({ childId, providerId, type: 'THERAPY_SESSION', startsAt })
 */
import { ApiConnectionError, ApiError } from './errors.ts'
import {
  accessTokenProviderSource,
  apiKeySource,
  clientCredentialsSource,
  type AccessTokenProvider,
  type CredentialSource,
  type TokenResponse,
} from './credentials.ts'
import { PageIterator } from './pagination.ts'
import { paginate, resource, type ListQuery, type UncheckedOptions } from './resources.ts'
import { DEFAULT_RETRY_POLICY, type RetryPolicy } from './retry-policy.ts'
import { execute, type RetryEvent, type TransportSettings } from './transport.ts'
import type {
  CallOptions,
  HttpMethod,
  ListItem,
  ListPaths,
  PathParams,
  PathsWith,
  RequestArgs,
  ResponseData,
} from './typed-paths.ts'
import { SDK_VERSION } from './version.ts'

/** How to reach and authenticate to the API. */
export interface ClientOptions {
  /** The API's origin, e.g. `https://api.example.com` (paths start with /v1). */
  baseUrl: string
  /** OAuth 2.0 client credentials: the SDK obtains and renews access tokens itself. */
  clientId?: string
  clientSecret?: string
  /** Scopes to request (space-separated or a list); by default all the client holds. */
  scope?: string | string[]
  /** Or an API key, sent as the bearer credential (it cannot be renewed, so a 401 is final). */
  apiKey?: string
  /**
   * Or, where no secret may live (a browser, a mobile app): short-lived access tokens from the app's own backend,
   * asked for again before they expire and after a 401 (docs/sdk.md, "Credentials in browsers and apps").
   */
  accessToken?: AccessTokenProvider
  /** Overrides of the retry bounds and spacing ({@link DEFAULT_RETRY_POLICY}). */
  retry?: Partial<RetryPolicy>
  /** Time limit of one attempt in milliseconds (default 30 000); an attempt that times out is retried. */
  timeoutMs?: number
  /** The fetch to use (default: the global one). */
  fetch?: typeof fetch
  /** Headers sent on every request. */
  headers?: Record<string, string>
  /** Told about every retry before the SDK waits: for logs and metrics. */
  onRetry?: (event: RetryEvent) => void
}

/** A successful call's parsed body together with the response (status and headers; its body already read). */
export interface ResponseWithData<T> {
  data: T
  response: Response
}

const DEFAULT_TIMEOUT_MS = 30_000

/** Reads a 2xx body: JSON, or undefined when there is none. */
async function readData(response: Response): Promise<unknown> {
  const text = await response.text()
  return text ? JSON.parse(text) : undefined
}

function buildUrl(baseUrl: string, template: string, params?: Record<string, string | number>, query?: object): string {
  const path = template.replace(/\{([^}]+)\}/g, (_, name: string) => {
    const value = params?.[name]
    if (value === undefined || value === '') throw new TypeError(`Missing path parameter "${name}" of ${template}.`)
    return encodeURIComponent(String(value))
  })
  const search = new URLSearchParams()
  for (const [name, value] of Object.entries(query ?? {})) {
    if (value === undefined || value === null) continue
    for (const v of Array.isArray(value) ? value : [value]) search.append(name, String(v))
  }
  const qs = search.toString()
  return `${baseUrl}${path}${qs ? `?${qs}` : ''}`
}

/** A client of the Therapy Care Platform API. */
export class TherapyCareClient {
  readonly #baseUrl: string
  readonly #settings: TransportSettings
  readonly #credentials: CredentialSource
  readonly #headers: Record<string, string>

  // The main resources. Each namespace's type offers only the methods the description serves (resources.ts);
  // `resource(base)` builds one for any other collection, and `request` reaches every operation.
  /** `/v1/appointments`: book, read, list (actions such as cancel go through `request`). */
  readonly appointments = resource(this.#unchecked.bind(this), '/v1/appointments')
  /** `/v1/children`. */
  readonly children = resource(this.#unchecked.bind(this), '/v1/children')
  /** `/v1/providers` (therapists). */
  readonly providers = resource(this.#unchecked.bind(this), '/v1/providers')
  /** `/v1/clients`: parents, guardians and payers, with `custom_fields`. */
  readonly clients = resource(this.#unchecked.bind(this), '/v1/clients')
  /** `/v1/pets`. */
  readonly pets = resource(this.#unchecked.bind(this), '/v1/pets')
  /** `/v1/locations`. */
  readonly locations = resource(this.#unchecked.bind(this), '/v1/locations')
  /** `/v1/prices`. */
  readonly prices = resource(this.#unchecked.bind(this), '/v1/prices')
  /** `/v1/orders`. */
  readonly orders = resource(this.#unchecked.bind(this), '/v1/orders')
  /** `/v1/payments`. */
  readonly payments = resource(this.#unchecked.bind(this), '/v1/payments')
  /** `/v1/sessions`: therapy sessions (their SOAP notes go through `request`). */
  readonly sessions = resource(this.#unchecked.bind(this), '/v1/sessions')
  /** `/v1/assessments`. */
  readonly assessments = resource(this.#unchecked.bind(this), '/v1/assessments')
  /** `/v1/assistants`: centre-scoped AI assistants. */
  readonly assistants = resource(this.#unchecked.bind(this), '/v1/assistants')
  /** `/v1/events`: the events the tenant's webhooks deliver. */
  readonly events = resource(this.#unchecked.bind(this), '/v1/events')
  /** `/v1/webhook-endpoints`. */
  readonly webhookEndpoints = resource(this.#unchecked.bind(this), '/v1/webhook-endpoints')

  constructor(options: ClientOptions) {
    if (!/^https?:\/\//.test(options.baseUrl))
      throw new Error('baseUrl must be an http(s) URL, e.g. https://api.example.com')
    this.#baseUrl = options.baseUrl.replace(/\/+$/, '')
    this.#headers = { ...options.headers }
    const policy = { ...DEFAULT_RETRY_POLICY, ...options.retry }
    if (!(policy.maxAttempts >= 1)) throw new Error('retry.maxAttempts must be at least 1')
    this.#settings = {
      fetch: options.fetch ?? globalThis.fetch.bind(globalThis),
      policy,
      timeoutMs: options.timeoutMs ?? DEFAULT_TIMEOUT_MS,
      random: Math.random,
      now: Date.now,
      onRetry: options.onRetry,
    }
    const ways = [options.apiKey, options.clientId, options.accessToken].filter((way) => way !== undefined)
    if (ways.length > 1) throw new Error('Pass one of apiKey, clientId and clientSecret, or accessToken.')
    if (options.apiKey !== undefined) {
      this.#credentials = apiKeySource(options.apiKey)
    } else if (options.accessToken !== undefined) {
      this.#credentials = accessTokenProviderSource(options.accessToken, () => this.#settings.now())
    } else if (options.clientId && options.clientSecret) {
      this.#credentials = clientCredentialsSource({
        clientId: options.clientId,
        clientSecret: options.clientSecret,
        scope: Array.isArray(options.scope) ? options.scope.join(' ') : options.scope,
        requestToken: (body) => this.#requestToken(body),
        now: () => this.#settings.now(),
      })
    } else {
      throw new Error('Pass clientId and clientSecret (OAuth client credentials), apiKey, or accessToken.')
    }
  }

  /**
   * A typed call of any operation in the description.
   * @example client.request('GET', '/v1/children/{id}', { params: { id } })
   * @returns the body of the 2xx answer
   * @throws {@link ApiError} for an answer outside 2xx (after the retries it deserved),
   *   {@link ApiConnectionError} when no attempt got an answer
   */
  async request<M extends HttpMethod, P extends PathsWith<M>>(
    method: M,
    path: P,
    ...args: RequestArgs<P, M>
  ): Promise<ResponseData<P, M>> {
    return (await this.#send(method, path, args[0])).data as ResponseData<P, M>
  }

  /** Like {@link request}, with the response too (status, `Location`, `Idempotent-Replayed`, rate-limit headers). */
  async requestWithResponse<M extends HttpMethod, P extends PathsWith<M>>(
    method: M,
    path: P,
    ...args: RequestArgs<P, M>
  ): Promise<ResponseWithData<ResponseData<P, M>>> {
    return (await this.#send(method, path, args[0])) as ResponseWithData<ResponseData<P, M>>
  }

  /**
   * A call the types do not know yet (a route newer than this SDK's description): same credentials, retries and
   * errors, no type checking.
   */
  async requestUnchecked<T = unknown>(method: HttpMethod, path: string, options?: UncheckedOptions): Promise<T> {
    return (await this.#send(method, path, options)).data as T
  }

  /**
   * Every item of a list, following `nextCursor` page after page.
   * @example for await (const child of client.paginate('/v1/children', { limit: 50 })) { ... }
   * @param query - filters, sorting and page size, kept on every page
   */
  paginate<P extends ListPaths>(
    path: P,
    query?: ListQuery<P>,
    options?: CallOptions & ([PathParams<P, 'GET'>] extends [never] ? unknown : { params: PathParams<P, 'GET'> })
  ): PageIterator<ListItem<P>> {
    return paginate<ListItem<P>>(this.#unchecked.bind(this), path, query, options)
  }

  /** The namespace of any collection path (`client.resource('/v1/pets')`), typed from the description. */
  resource<B extends string>(base: B) {
    return resource(this.#unchecked.bind(this), base)
  }

  async #unchecked(method: HttpMethod, path: string, options?: UncheckedOptions): Promise<unknown> {
    return (await this.#send(method, path, options)).data
  }

  async #send(
    method: HttpMethod,
    template: string,
    options: UncheckedOptions = {}
  ): Promise<ResponseWithData<unknown>> {
    const url = buildUrl(this.#baseUrl, template, options.params, options.query)
    const isWrite = method !== 'GET'
    // One key per logical call, generated before the first attempt: every retry carries the same key, so the API
    // replays the first attempt's answer instead of acting twice.
    const idempotencyKey = options.idempotencyKey ?? (isWrite ? globalThis.crypto.randomUUID() : undefined)
    const body = options.body === undefined ? undefined : JSON.stringify(options.body)
    let sentBearer = ''
    const response = await execute(
      {
        call: `${method} ${template}`,
        repeatable: !isWrite || idempotencyKey !== undefined,
        signal: options.signal,
        send: async (signal) => {
          sentBearer = await this.#credentials.bearer()
          const headers = this.#requestHeaders(options.headers)
          headers.set('Authorization', `Bearer ${sentBearer}`)
          if (idempotencyKey !== undefined) headers.set('Idempotency-Key', idempotencyKey)
          if (body !== undefined) headers.set('Content-Type', 'application/json')
          return this.#settings.fetch(url, { method, headers, body, signal })
        },
        renewCredentials: () => this.#credentials.renew(sentBearer),
      },
      this.#settings
    )
    return { data: await readData(response), response }
  }

  async #requestToken(fields: Record<string, string>): Promise<TokenResponse> {
    const response = await execute(
      {
        call: 'POST /oauth/token',
        // A repeated token request at worst issues a token nobody uses; a repeated refresh is refused as already
        // used, and the credentials source then falls back to client credentials.
        repeatable: true,
        send: (signal) => {
          const headers = this.#requestHeaders()
          headers.set('Content-Type', 'application/json')
          return this.#settings.fetch(`${this.#baseUrl}/oauth/token`, {
            method: 'POST',
            headers,
            body: JSON.stringify(fields),
            signal,
          })
        },
      },
      this.#settings
    )
    return (await readData(response)) as TokenResponse
  }

  #requestHeaders(extra?: Record<string, string>): Headers {
    const headers = new Headers({
      Accept: 'application/json, application/problem+json',
      'User-Agent': `therapy-care-sdk-typescript/${SDK_VERSION}`,
      ...this.#headers,
      ...extra,
    })
    return headers
  }
}

/** Shorthand for `new TherapyCareClient(options)`. */
export function createClient(options: ClientOptions): TherapyCareClient {
  return new TherapyCareClient(options)
}

export { ApiConnectionError, ApiError }
