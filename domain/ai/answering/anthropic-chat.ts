/**
 * @module A chat model over Anthropic's Messages API (`POST /v1/messages`), as a LangChain SimpleChatModel over
 * `fetch`: system messages go in the `system` field, the rest alternate user and assistant.
 */
import { SimpleChatModel, type BaseChatModelParams } from '@langchain/core/language_models/chat_models'
import type { BaseMessage } from '@langchain/core/messages'

export interface AnthropicChatOptions extends BaseChatModelParams {
  /** Default https://api.anthropic.com. */
  baseUrl?: string
  model: string
  apiKey?: string
  maxTokens?: number
  fetch?: typeof fetch
  timeoutMs?: number
}

export const ANTHROPIC_VERSION = '2023-06-01'

export class AnthropicChatModel extends SimpleChatModel {
  private readonly options: AnthropicChatOptions

  constructor(options: AnthropicChatOptions) {
    super({ maxRetries: 2, ...options })
    this.options = options
  }

  _llmType(): string {
    return 'anthropic'
  }

  async _call(messages: BaseMessage[]): Promise<string> {
    const { baseUrl = 'https://api.anthropic.com', model, apiKey, maxTokens = 1024, timeoutMs = 60_000 } = this.options
    const system = messages
      .filter((m) => m._getType() === 'system')
      .map((m) => m.text)
      .join('\n\n')
    const turns = messages
      .filter((m) => m._getType() !== 'system')
      .map((m) => ({ role: m._getType() === 'ai' ? 'assistant' : 'user', content: m.text }))
    const response = await (this.options.fetch ?? fetch)(`${baseUrl.replace(/\/+$/, '')}/v1/messages`, {
      method: 'POST',
      headers: {
        'Content-Type': 'application/json',
        'anthropic-version': ANTHROPIC_VERSION,
        ...(apiKey ? { 'x-api-key': apiKey } : {}),
      },
      body: JSON.stringify({
        model,
        max_tokens: maxTokens,
        temperature: 0,
        ...(system ? { system } : {}),
        messages: turns,
      }),
      signal: AbortSignal.timeout(timeoutMs),
    })
    if (!response.ok) throw new Error(`chat request failed: HTTP ${response.status}`)
    const body = (await response.json()) as { content?: Array<{ type: string; text?: string }> }
    const text = (body.content ?? [])
      .filter((part) => part.type === 'text')
      .map((part) => part.text ?? '')
      .join('')
    if (!text) throw new Error('chat response has no text')
    return text
  }
}
