/**
 * @module A chat model over any OpenAI-compatible `/chat/completions` endpoint (OpenAI, Ollama's `/v1`, vLLM,
 * LM Studio): a LangChain SimpleChatModel over `fetch`, so the project carries no provider SDK. Temperature 0: the
 * same passages and question should give the same answer.
 */
import { SimpleChatModel, type BaseChatModelParams } from '@langchain/core/language_models/chat_models'
import type { BaseMessage } from '@langchain/core/messages'

export interface OpenAiCompatibleChatOptions extends BaseChatModelParams {
  /** Base URL ending before `/chat/completions`, e.g. https://api.openai.com/v1. */
  baseUrl: string
  model: string
  apiKey?: string
  fetch?: typeof fetch
  timeoutMs?: number
}

/** The OpenAI role of a LangChain message. */
export function openAiRole(message: BaseMessage): 'system' | 'user' | 'assistant' {
  const type = message._getType()
  return type === 'system' ? 'system' : type === 'ai' ? 'assistant' : 'user'
}

export class OpenAiCompatibleChatModel extends SimpleChatModel {
  private readonly options: OpenAiCompatibleChatOptions

  constructor(options: OpenAiCompatibleChatOptions) {
    super({ maxRetries: 2, ...options })
    this.options = options
  }

  _llmType(): string {
    return 'openai-compatible'
  }

  async _call(messages: BaseMessage[]): Promise<string> {
    const { baseUrl, model, apiKey, timeoutMs = 60_000 } = this.options
    const response = await (this.options.fetch ?? fetch)(`${baseUrl.replace(/\/+$/, '')}/chat/completions`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', ...(apiKey ? { Authorization: `Bearer ${apiKey}` } : {}) },
      body: JSON.stringify({
        model,
        temperature: 0,
        messages: messages.map((m) => ({ role: openAiRole(m), content: m.text })),
      }),
      signal: AbortSignal.timeout(timeoutMs),
    })
    if (!response.ok) throw new Error(`chat request failed: HTTP ${response.status}`)
    const body = (await response.json()) as { choices?: Array<{ message?: { content?: string } }> }
    const content = body.choices?.[0]?.message?.content
    if (typeof content !== 'string') throw new Error('chat response has no message content')
    return content
  }
}
