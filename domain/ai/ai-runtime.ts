/**
 * @module The AI runtime of a process (API or worker): the embedding model, the answerer and the vector stores,
 * chosen by configuration (infra/ai-config.ts, docs/ai.md). The defaults are offline and deterministic: the
 * lexical embeddings and the extractive answerer. A configured provider is used through the same LangChain
 * interfaces (`Embeddings`, `BaseChatModel`, `VectorStore`), so nothing downstream knows which one it got.
 */
import type { AiConfig } from '../../infra/ai-config.ts'
import { createAnthropicChat } from './answering/anthropic-chat.ts'
import type { Answerer } from './answering/answer-types.ts'
import { createChatAnswerer } from './answering/chat-answerer.ts'
import { createExtractiveAnswerer } from './answering/extractive-answerer.ts'
import { createSemanticAnswerer } from './answering/semantic-answerer.ts'
import { createOpenAiCompatibleChat } from './answering/openai-compatible-chat.ts'
import { LexicalEmbeddings } from './embeddings/lexical-embeddings.ts'
import { OpenAiCompatibleEmbeddings } from './embeddings/openai-compatible-embeddings.ts'
import {
  defaultSentenceModelDir,
  SENTENCE_MODEL_ID,
  SentenceEmbeddings,
  sentenceModelProblem,
} from './embeddings/sentence-embeddings.ts'
import { DEFAULT_CHUNKING, type ChunkingOptions } from './knowledge/chunk-document.ts'
import { createKnowledgeStores, type KnowledgeStores } from './vector-store/knowledge-stores.ts'
import type { KnowledgeEmbeddings } from './vector-store/knowledge-vector-store.ts'
import { createVectorIndexCache, type VectorIndexCache } from './vector-store/vector-index-cache.ts'
import type { LoadedChunks } from './vector-store/postgres-vector-store.ts'

export interface AiRuntime {
  embeddings: KnowledgeEmbeddings
  answerer: Answerer
  stores: KnowledgeStores
  chunking: ChunkingOptions
  /** Why the configured embeddings were replaced by the lexical ones (the sentence model's files are absent). */
  embeddingsFallback?: string
  /**
   * The embeddings of a model id, when this process can run that model: the configured one, the lexical model
   * (always), the sentence model (when its files are present). An assistant's questions are embedded with the model
   * its vectors were made with, which after a change of configuration is the previous one until the re-embedding
   * workflow flips it (docs/ai.md, "Changing the embedding model").
   */
  embeddingsFor: (modelId: string) => KnowledgeEmbeddings | undefined
}

export interface AiRuntimeOptions {
  /** For tests: the HTTP client providers are called with. */
  fetch?: typeof fetch
  cache?: VectorIndexCache<LoadedChunks>
}

/** Default endpoints and models per provider; each can be overridden by the *_URL and *_MODEL variables. */
const PROVIDER_DEFAULTS = {
  openai: { url: 'https://api.openai.com/v1', embeddingsModel: 'text-embedding-3-small', chatModel: 'gpt-4o-mini' },
  ollama: { url: 'http://127.0.0.1:11434/v1', embeddingsModel: 'nomic-embed-text', chatModel: 'llama3.1' },
  anthropic: { url: 'https://api.anthropic.com', chatModel: 'claude-3-5-haiku-latest' },
} as const

/** A hosted provider's default endpoint needs a key; a custom or local endpoint may not. */
function requireKey(provider: string, variable: string, url: string | undefined, key: string | undefined) {
  if (!url && !key && provider !== 'ollama') {
    throw new Error(`${variable} is required for provider ${provider} at its default endpoint (docs/ai.md)`)
  }
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
  return new OpenAiCompatibleEmbeddings(provider, {
    baseUrl: config.AI_EMBEDDINGS_URL ?? defaults.url,
    model: config.AI_EMBEDDINGS_MODEL ?? defaults.embeddingsModel,
    apiKey: config.AI_EMBEDDINGS_API_KEY,
    fetch: options.fetch,
  })
}

/**
 * Finds the embeddings of a model id among those this process can run, building each at most once.
 * @param configured - the process's configured (effective) embeddings
 * @param sentenceDir - where the sentence model's files are
 */
export function createEmbeddingsRegistry(
  configured: KnowledgeEmbeddings,
  sentenceDir: string
): (modelId: string) => KnowledgeEmbeddings | undefined {
  const lexical = configured instanceof LexicalEmbeddings ? configured : new LexicalEmbeddings()
  let sentence: KnowledgeEmbeddings | null | undefined
  return (modelId) => {
    if (modelId === configured.modelId) return configured
    if (modelId === lexical.modelId) return lexical
    if (modelId !== SENTENCE_MODEL_ID) return undefined
    // Checked once, on the first question that needs it: hashing the files costs tens of milliseconds.
    sentence ??= sentenceModelProblem(sentenceDir) ? null : new SentenceEmbeddings({ dir: sentenceDir })
    return sentence ?? undefined
  }
}

/** The answerer the configuration names. */
export function selectAnswerer(config: AiConfig, options: AiRuntimeOptions = {}): Answerer {
  const provider = config.AI_CHAT_PROVIDER
  // Chooses its quotes by meaning where the knowledge has sentence vectors, by the question's words where not.
  if (provider === 'extractive') return createSemanticAnswerer(createExtractiveAnswerer())
  requireKey(provider, 'AI_CHAT_API_KEY', config.AI_CHAT_URL, config.AI_CHAT_API_KEY)
  const defaults = PROVIDER_DEFAULTS[provider]
  const model = config.AI_CHAT_MODEL ?? defaults.chatModel
  const chat =
    provider === 'anthropic'
      ? createAnthropicChat({
          baseUrl: config.AI_CHAT_URL ?? defaults.url,
          model,
          apiKey: config.AI_CHAT_API_KEY,
          fetch: options.fetch,
        })
      : createOpenAiCompatibleChat({
          baseUrl: config.AI_CHAT_URL ?? defaults.url,
          model,
          apiKey: config.AI_CHAT_API_KEY,
          fetch: options.fetch,
        })
  return createChatAnswerer(chat, `${provider}:${model}`)
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
  }
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
