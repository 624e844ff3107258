/**
 * @module The embeddings of each model id a process can run (AiRuntime's `embeddingsFor`): the configured one, the
 * lexical model (always), the sentence model when its files are present. Here rather than in the domain because it
 * builds the sentence model, an adapter (issue 79, item 3).
 */
import { LexicalEmbeddings } from '../../domain/ai/embeddings/lexical-embeddings.ts'
import { SENTENCE_MODEL_ID } from '../../domain/ai/embeddings/sentence-model.ts'
import type { KnowledgeEmbeddings } from '../../domain/ai/vector-store/knowledge-vector-store.ts'
import { SentenceEmbeddings, sentenceModelProblem } from './sentence-embeddings.ts'

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
