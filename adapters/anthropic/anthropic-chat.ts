/**
 * @module The Anthropic chat model: LangChain's own integration (`ChatAnthropic` from `@langchain/anthropic`, over
 * Anthropic's SDK), set up the way every provider is set up here. Settings come from our configuration only (the
 * integration would otherwise read `ANTHROPIC_API_KEY` and `ANTHROPIC_BASE_URL` from the environment), temperature
 * 0 so the same passages and question give the same answer, a bounded request time, and an injectable `fetch`.
 */
import { ChatAnthropic } from '@langchain/anthropic'

/** What {@link createAnthropicChat} needs; the same shape as the OpenAI-compatible adapter's settings. */
export interface AnthropicChatOptions {
  /** Default https://api.anthropic.com. */
  baseUrl?: string
  model: string
  /** Absent for an endpoint that takes none (a local gateway); the hosted API's key is required at start-up. */
  apiKey?: string
  maxTokens?: number
  fetch?: typeof fetch
  timeoutMs?: number
}

/**
 * The chat model for Anthropic's Messages API (`POST {baseUrl}/v1/messages`).
 * @param options - endpoint, model and credentials from the configuration
 * @returns a LangChain chat model (`BaseChatModel`), as the answerer and the agent decider take
 */
export function createAnthropicChat(options: AnthropicChatOptions): ChatAnthropic {
  const { baseUrl = 'https://api.anthropic.com', model, apiKey, maxTokens = 1024, timeoutMs = 60_000 } = options
  return new ChatAnthropic({
    model,
    // Without a key the integration would read ANTHROPIC_API_KEY or refuse to start: for an endpoint configured
    // without one it gets a placeholder, and the header is dropped below (`null` removes a default header).
    apiKey: apiKey ?? 'unused',
    anthropicApiUrl: baseUrl.replace(/\/+$/, ''),
    maxTokens,
    temperature: 0,
    maxRetries: 2,
    clientOptions: {
      timeout: timeoutMs,
      ...(options.fetch ? { fetch: options.fetch } : {}),
      ...(apiKey ? {} : { defaultHeaders: { 'x-api-key': null } }),
    },
  })
}
