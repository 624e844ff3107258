/**
 * @module How the OpenAI-compatible chat model and embeddings (`@langchain/openai` over OpenAI's SDK) are pointed at
 * a provider: from our configuration only. Left to themselves, LangChain and the SDK fill what is not given from the
 * environment (`OPENAI_API_KEY`, `OPENAI_ORGANIZATION`, `OPENAI_ORG_ID`, `OPENAI_PROJECT_ID`), so an endpoint
 * configured without a key (a local Ollama) could be sent a key meant for another service. Requests go through the
 * `fetch` we are given (tests inject a stub; in production the process's `fetch`, as before the integration).
 */
import type { ClientOptions } from '@langchain/openai'

/** What both adapters take besides their endpoint and model. */
export interface OpenAiCompatibleSettings {
  /** Base URL ending before the endpoint's path, e.g. https://api.openai.com/v1. */
  baseUrl: string
  /** Absent for an endpoint that takes none (a local gateway); the hosted API's key is required at start-up. */
  apiKey?: string
  fetch?: typeof fetch
  timeoutMs?: number
}

/**
 * Removes the `Authorization` header before the request leaves: the SDK will not start without a key, so an
 * endpoint configured without one is given a placeholder, which must not be sent. (A `null` default header cannot do
 * it: LangChain drops non-string default headers before the SDK sees them.)
 */
function withoutAuthorization(send: typeof fetch): typeof fetch {
  return (input, init) => {
    const headers = new Headers(init?.headers)
    headers.delete('authorization')
    return send(input, { ...init, headers })
  }
}

/**
 * Labels a successful reply as JSON whatever its `Content-Type`. The SDK parses a body as JSON only when the header
 * says so and hands back the text otherwise (`text/plain` is what a `Response` built from a string gets); the
 * hand-written adapters this replaced read every successful reply as JSON, so a server or proxy that labels it
 * otherwise keeps working. Error replies are left as they are: the SDK reads those as text and parses what it can.
 */
function readAsJson(send: typeof fetch): typeof fetch {
  return async (input, init) => {
    const response = await send(input, init)
    if (!response.ok || /\bjson\b/i.test(response.headers.get('content-type') ?? '')) return response
    const headers = new Headers(response.headers)
    headers.set('content-type', 'application/json')
    return new Response(response.body, { status: response.status, statusText: response.statusText, headers })
  }
}

/**
 * The `apiKey` and `configuration` fields of `ChatOpenAICompletions` and `OpenAIEmbeddings` for our settings.
 * @param settings - endpoint and credentials from the configuration
 */
export function openAiClientConfiguration(settings: OpenAiCompatibleSettings): {
  apiKey: string
  configuration: ClientOptions
} {
  const send = settings.fetch ?? ((input, init) => fetch(input, init))
  return {
    apiKey: settings.apiKey ?? 'unused',
    configuration: {
      baseURL: settings.baseUrl.replace(/\/+$/, ''),
      organization: null,
      project: null,
      fetch: readAsJson(settings.apiKey ? send : withoutAuthorization(send)),
    },
  }
}

/**
 * The error a provider's HTTP failure is reported with, as before the integration: `chat request failed: HTTP 503`.
 * The SDK's own error carries the provider's body in its message, which would reach the logs and, for an agent run,
 * the Temporal history; the status is what callers and operators act on. Other errors (timeouts, refused
 * connections, a malformed reply) pass unchanged.
 * @param what - `chat` or `embeddings`
 * @param error - what the integration threw, after its retries
 */
export function providerFailure(what: 'chat' | 'embeddings', error: unknown): unknown {
  const status = typeof error === 'object' && error !== null && 'status' in error ? error.status : undefined
  return typeof status === 'number' ? new Error(`${what} request failed: HTTP ${status}`) : error
}
