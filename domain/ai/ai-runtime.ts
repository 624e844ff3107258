/**
 * @module The AI runtime of a process (API or worker) as the domain uses it: the embedding model, the answerer and the
 * vector stores. Which ones is the configuration's choice, made where the process is put together
 * (adapters/ai-models.ts `createAiRuntime`, docs/ai.md): the defaults are offline and deterministic (the lexical
 * embeddings, the extractive answerer); a configured provider comes through the same LangChain interfaces
 * (`Embeddings`, `BaseChatModel`, `VectorStore`), so nothing here knows which one it got.
 */
import type { Answerer } from './answering/answer-types.ts'
import type { ChunkingOptions } from './knowledge/chunk-document.ts'
import type { KnowledgeQuotas } from './knowledge/knowledge-quotas.ts'
import type { DocumentParser } from './knowledge/parsed-document.ts'
import type { KnowledgeStores } from './vector-store/knowledge-stores.ts'
import type { KnowledgeEmbeddings } from './vector-store/knowledge-vector-store.ts'

export interface AiRuntime {
  embeddings: KnowledgeEmbeddings
  answerer: Answerer
  stores: KnowledgeStores
  chunking: ChunkingOptions
  /** Reads uploaded files (untrusted) into text with structure, where a deadline and a memory limit can stop it. */
  documents: DocumentParser
  /**
   * Each tenant's knowledge quotas (KNOWLEDGE_*_PER_*), checked at upload and when a version's chunks are stored;
   * absent in a runtime a test builds by hand, which has none.
   */
  knowledgeQuotas?: KnowledgeQuotas
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
