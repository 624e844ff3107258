/**
 * @module A chat model over any OpenAI-compatible `/chat/completions` endpoint (OpenAI, Ollama's `/v1`, vLLM,
 * LM Studio): LangChain's own integration (`ChatOpenAICompletions` from `@langchain/openai`, over OpenAI's SDK), set
 * up the way every provider is set up here (as anthropic-chat.ts does). Temperature 0: the same passages and question
 * should give the same answer.
 *
 * Pinned to `@langchain/openai` 1.5.8 (`openai` 6): the last release for Node 20, which the project still supports;
 * 1.5.9 and later require Node 22. The Completions class rather than `ChatOpenAI`, which sends some model names
 * (`gpt-5-codex`, `o1-pro`...) to OpenAI's `/responses`, an endpoint Ollama and vLLM do not serve.
 */
import type { BaseChatModel } from '@langchain/core/language_models/chat_models'
import { ChatOpenAICompletions, type OpenAIClient } from '@langchain/openai'
import {
  openAiClientConfiguration,
  providerFailure,
  type OpenAiCompatibleSettings,
} from './openai-compatible-client.ts'

/** The endpoint (`baseUrl` ends before `/chat/completions`), model and credentials. */
export interface OpenAiCompatibleChatOptions extends OpenAiCompatibleSettings {
  model: string
  /** Most tokens a reply may have (AI_CHAT_MAX_TOKENS): the bound on a call's cost and time. */
  maxTokens?: number
}

/**
 * Reads the answer as the hand-written adapter did: a reply without text content is an error, not an abstention, and
 * an HTTP failure is reported by its status (openai-compatible-client.ts).
 */
class CompletionsChat extends ChatOpenAICompletions {
  override completionWithRetry(
    request: OpenAIClient.Chat.ChatCompletionCreateParamsStreaming,
    requestOptions?: OpenAIClient.RequestOptions
  ): Promise<AsyncIterable<OpenAIClient.Chat.Completions.ChatCompletionChunk>>
  override completionWithRetry(
    request: OpenAIClient.Chat.ChatCompletionCreateParamsNonStreaming,
    requestOptions?: OpenAIClient.RequestOptions
  ): Promise<OpenAIClient.Chat.Completions.ChatCompletion>
  override async completionWithRetry(
    request: OpenAIClient.Chat.ChatCompletionCreateParams,
    requestOptions?: OpenAIClient.RequestOptions
  ): Promise<
    AsyncIterable<OpenAIClient.Chat.Completions.ChatCompletionChunk> | OpenAIClient.Chat.Completions.ChatCompletion
  > {
    if (request.stream) return super.completionWithRetry(request, requestOptions)
    const completion = await super.completionWithRetry(request, requestOptions).catch((error: unknown) => {
      throw providerFailure('chat', error)
    })
    // Without this, no choice or a null content (a refusal, a tool call) would read as an empty answer. Typed loosely:
    // the body is whatever the server sent.
    const { choices } = completion as { choices?: Array<{ message?: { content?: unknown } }> }
    if (typeof choices?.[0]?.message?.content !== 'string') throw new Error('chat response has no message content')
    return completion
  }
}

/**
 * The chat model for an OpenAI-compatible `POST {baseUrl}/chat/completions`.
 * @param options - endpoint, model and credentials from the configuration
 * @returns a LangChain chat model (`BaseChatModel`), as the answerer and the agent decider take
 */
export function createOpenAiCompatibleChat(options: OpenAiCompatibleChatOptions): BaseChatModel {
  const { model, timeoutMs = 60_000, maxTokens = 1024 } = options
  return new CompletionsChat({
    model,
    temperature: 0,
    maxTokens,
    timeout: timeoutMs,
    // One attempt, as before: the hand-written adapter declared two retries, but a SimpleChatModel never goes through
    // its retrying caller. A knowledge question waits on this inside its HTTP request (60 s at most, not three
    // times that), and the agent's decide step is an activity Temporal retries.
    maxRetries: 0,
    // One request, one answer: the streaming path would estimate tokens with tiktoken, whose tables it downloads.
    disableStreaming: true,
    ...openAiClientConfiguration(options),
  })
}
