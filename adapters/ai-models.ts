/**
 * @module The models a process talks to, picked by configuration (infra/ai-config.ts, docs/ai.md) where the process is
 * put together (the API's services, the worker, the evaluation): the AI runtime (embeddings, answerer, vector stores)
 * and the agent step's model. The defaults are offline and deterministic: the lexical embeddings, the extractive
 * answerer, the offline drafter. A configured provider is one of this folder's adapters (anthropic/,
 * openai-compatible/), handed to the domain through the interfaces the domain declares (`KnowledgeEmbeddings`, an
 * `Answerer` or `AgentDecider` over a LangChain `BaseChatModel`), so nothing in the domain knows which one it got.
 */
import type { AiConfig } from '../infra/ai-config.ts'
import { createChatDecider, offlineDecider, type AgentDecider } from '../domain/ai/agents/agent-decider.ts'
import type { AiRuntime } from '../domain/ai/ai-runtime.ts'
import type { Answerer } from '../domain/ai/answering/answer-types.ts'
import { createChatAnswerer } from '../domain/ai/answering/chat-answerer.ts'
import { createExtractiveAnswerer } from '../domain/ai/answering/extractive-answerer.ts'
import { createSemanticAnswerer } from '../domain/ai/answering/semantic-answerer.ts'
import { LexicalEmbeddings } from '../domain/ai/embeddings/lexical-embeddings.ts'
import { createEmbeddingsRegistry } from './sentence-model/embeddings-registry.ts'
import {
  defaultSentenceModelDir,
  SentenceEmbeddings,
  sentenceModelProblem,
} from './sentence-model/sentence-embeddings.ts'
import { DEFAULT_CHUNKING } from '../domain/ai/knowledge/chunk-document.ts'
import { knowledgeQuotasOf } from '../domain/ai/knowledge/knowledge-quotas.ts'
import type { DocumentParser } from '../domain/ai/knowledge/parsed-document.ts'
import { SandboxedDocumentParser } from './document-parsing/sandboxed-parser.ts'
import { createKnowledgeStores } from './pgvector/knowledge-store-selector.ts'
import type { KnowledgeEmbeddings } from '../domain/ai/vector-store/knowledge-vector-store.ts'
import { createVectorIndexCache, type VectorIndexCache } from '../domain/ai/vector-store/vector-index-cache.ts'
import type { LoadedChunks } from '../domain/ai/vector-store/postgres-vector-store.ts'
import type { ChatModel } from '../domain/ai/chat-model.ts'
import type { OpenAiCompatibleEmbeddingsOptions } from './openai-compatible/openai-compatible-embeddings.ts'

export interface AiRuntimeOptions {
  /** For tests: the HTTP client providers are called with. */
  fetch?: typeof fetch
  cache?: VectorIndexCache<LoadedChunks>
  /** The file reader, shared by runtimes of one process (the evaluation builds several). */
  documents?: DocumentParser
}

/** Default endpoints and models per provider; each can be overridden by the *_URL and *_MODEL variables. */
const PROVIDER_DEFAULTS = {
  openai: { url: 'https://api.openai.com/v1', embeddingsModel: 'text-embedding-3-small', chatModel: 'gpt-4o-mini' },
  ollama: { url: 'http://127.0.0.1:11434/v1', embeddingsModel: 'nomic-embed-text', chatModel: 'llama3.1' },
  anthropic: { url: 'https://api.anthropic.com', chatModel: 'claude-3-5-haiku-latest' },
} as const

/**
 * A chat model whose provider integration (@langchain/anthropic, @langchain/openai: ~0.35 s of CPU to load, in every
 * API and worker start) is loaded on its first call, so a process configured without one never loads it.
 */
function chatOnFirstCall(load: () => Promise<ChatModel>): ChatModel {
  let model: Promise<ChatModel> | undefined
  return {
    invoke: async (input, options) => {
      model ??= load()
      return (await model).invoke(input, options)
    },
  }
}

/** The OpenAI-compatible embeddings, their integration loaded on the first call as {@link chatOnFirstCall}'s. */
function openAiEmbeddingsOnFirstCall(
  provider: string,
  options: OpenAiCompatibleEmbeddingsOptions
): KnowledgeEmbeddings {
  let embeddings: Promise<KnowledgeEmbeddings> | undefined
  const loaded = () =>
    (embeddings ??= import('./openai-compatible/openai-compatible-embeddings.ts').then(
      ({ OpenAiCompatibleEmbeddings }) => new OpenAiCompatibleEmbeddings(provider, options)
    ))
  return {
    modelId: `${provider}:${options.model}`,
    embedDocuments: async (texts) => (await loaded()).embedDocuments(texts),
    embedQuery: async (text) => (await loaded()).embedQuery(text),
  }
}

/** A hosted provider's default endpoint needs a key; a custom or local endpoint may not. */
function requireKey(provider: string, variable: string, url: string | undefined, key: string | undefined) {
  if (!url && !key && provider !== 'ollama') {
    throw new Error(`${variable} is required for provider ${provider} at its default endpoint (docs/ai.md)`)
  }
}

/**
 * The chat model the configuration names, with its id (`<provider>:<model>`), or undefined for the offline default.
 * @param options.requireKey - refuse a hosted provider's default endpoint without a key (the answerer does)
 * @param options.timeoutMs - the deadline of a call (the answerer's AI_CHAT_TIMEOUT_MS; the agent's decide step keeps the
 *   adapters' 60 s, an activity Temporal retries)
 */
function configuredChat(
  config: AiConfig,
  options: AiRuntimeOptions & { requireKey?: boolean; timeoutMs?: number }
): { model: ChatModel; id: string } | undefined {
  const provider = config.AI_CHAT_PROVIDER
  if (provider === 'extractive') return undefined
  if (options.requireKey) requireKey(provider, 'AI_CHAT_API_KEY', config.AI_CHAT_URL, config.AI_CHAT_API_KEY)
  const defaults = PROVIDER_DEFAULTS[provider]
  const settings = {
    baseUrl: config.AI_CHAT_URL ?? defaults.url,
    model: config.AI_CHAT_MODEL ?? defaults.chatModel,
    apiKey: config.AI_CHAT_API_KEY,
    ...(options.timeoutMs ? { timeoutMs: options.timeoutMs } : {}),
    maxTokens: config.AI_CHAT_MAX_TOKENS,
    fetch: options.fetch,
  }
  const model = chatOnFirstCall(() =>
    provider === 'anthropic'
      ? import('./anthropic/anthropic-chat.ts').then(({ createAnthropicChat }) => createAnthropicChat(settings))
      : import('./openai-compatible/openai-compatible-chat.ts').then(({ createOpenAiCompatibleChat }) =>
          createOpenAiCompatibleChat(settings)
        )
  )
  return { model, id: `${provider}:${settings.model}` }
}

/**
 * The embedding model the configuration names, and why it is not the one named when the sentence model's files are
 * absent (then the lexical embeddings answer, as before the model existed).
 */
export function selectEmbeddingsWithFallback(
  config: AiConfig,
  options: AiRuntimeOptions = {}
): { embeddings: KnowledgeEmbeddings; fallback?: string } {
  if (config.AI_EMBEDDINGS_PROVIDER !== 'sentence') return { embeddings: selectEmbeddings(config, options) }
  const dir = config.AI_SENTENCE_MODEL_DIR ?? defaultSentenceModelDir()
  const problem = sentenceModelProblem(dir)
  return problem
    ? { embeddings: new LexicalEmbeddings(), fallback: problem }
    : { embeddings: new SentenceEmbeddings({ dir }) }
}

/** The embedding model the configuration names (the sentence model without a fallback check: see above). */
export function selectEmbeddings(config: AiConfig, options: AiRuntimeOptions = {}): KnowledgeEmbeddings {
  const provider = config.AI_EMBEDDINGS_PROVIDER
  if (provider === 'local') return new LexicalEmbeddings()
  if (provider === 'sentence') return selectEmbeddingsWithFallback(config, options).embeddings
  requireKey(provider, 'AI_EMBEDDINGS_API_KEY', config.AI_EMBEDDINGS_URL, config.AI_EMBEDDINGS_API_KEY)
  const defaults = PROVIDER_DEFAULTS[provider]
  return openAiEmbeddingsOnFirstCall(provider, {
    baseUrl: config.AI_EMBEDDINGS_URL ?? defaults.url,
    model: config.AI_EMBEDDINGS_MODEL ?? defaults.embeddingsModel,
    apiKey: config.AI_EMBEDDINGS_API_KEY,
    fetch: options.fetch,
  })
}

/** The answerer the configuration names. */
export function selectAnswerer(config: AiConfig, options: AiRuntimeOptions = {}): Answerer {
  const chat = configuredChat(config, { ...options, requireKey: true, timeoutMs: config.AI_CHAT_TIMEOUT_MS })
  // Chooses its quotes by meaning where the knowledge has sentence vectors, by the question's words where not.
  const offline = createSemanticAnswerer(createExtractiveAnswerer())
  // A chat model that fails (its deadline, a 5xx) leaves the question to the offline answerer, which says so.
  return chat ? createChatAnswerer(chat.model, chat.id, offline) : offline
}

/**
 * The agent the configuration names: the offline drafter for `AI_CHAT_PROVIDER=extractive` (the default), else the
 * configured chat model through the same LangChain interface the knowledge answerer uses.
 * @param options.fetch - for tests: the HTTP client the provider is called with
 */
export function selectAgentDecider(config: AiConfig, options: { fetch?: typeof fetch } = {}): AgentDecider {
  const chat = configuredChat(config, options)
  return chat ? createChatDecider(chat.model, chat.id) : offlineDecider
}

/**
 * Builds the runtime once per process.
 * @throws Error for a provider configured without what it needs (checked at start-up, not on the first request)
 */
export function createAiRuntime(config: AiConfig, options: AiRuntimeOptions = {}): AiRuntime {
  const { embeddings, fallback } = selectEmbeddingsWithFallback(config, options)
  return {
    embeddings,
    ...(fallback ? { embeddingsFallback: fallback } : {}),
    embeddingsFor: createEmbeddingsRegistry(embeddings, config.AI_SENTENCE_MODEL_DIR ?? defaultSentenceModelDir()),
    answerer: selectAnswerer(config, options),
    stores: createKnowledgeStores(
      config.AI_VECTOR_STORE,
      embeddings,
      options.cache ?? createVectorIndexCache<LoadedChunks>()
    ),
    chunking: DEFAULT_CHUNKING,
    documents: options.documents ?? sandboxedParserOf(config),
    knowledgeQuotas: knowledgeQuotasOf(config),
  }
}

/** The file reader of a process: reader processes with the configured limits, started on the first upload. */
function sandboxedParserOf(config: AiConfig): SandboxedDocumentParser {
  return new SandboxedDocumentParser({
    timeoutMs: config.KNOWLEDGE_PARSE_TIMEOUT_MS,
    maxMemoryMb: config.KNOWLEDGE_PARSE_MAX_MEMORY_MB,
    nice: config.KNOWLEDGE_PARSE_NICE,
    processes: config.KNOWLEDGE_PARSE_PROCESSES,
    waitingPerTenant: config.KNOWLEDGE_PARSE_WAITING_PER_TENANT,
    waitingInAll: config.KNOWLEDGE_PARSE_WAITING,
    maxPages: config.KNOWLEDGE_MAX_PDF_PAGES,
    maxTextChars: config.KNOWLEDGE_MAX_TEXT_CHARS,
    maxInflatedBytes: config.KNOWLEDGE_MAX_INFLATED_BYTES,
  })
}

/**
 * Says in one log line which embedding model and answerer a process uses (`npm start` shows it for the API and the
 * worker), as a warning when the sentence model was configured but its files are absent.
 * @param logger - the process's logger
 */
export function logAiModels(
  logger: { info: (fields: object, message: string) => void; warn: (fields: object, message: string) => void },
  ai: AiRuntime
): void {
  const fields = { embeddings: ai.embeddings.modelId, answerer: ai.answerer.id }
  if (ai.embeddingsFallback) {
    logger.warn(
      { ...fields, reason: ai.embeddingsFallback },
      `knowledge: the sentence model is absent, using the lexical embeddings ${ai.embeddings.modelId}`
    )
  } else logger.info(fields, `knowledge: embeddings ${ai.embeddings.modelId}, answerer ${ai.answerer.id}`)
}
