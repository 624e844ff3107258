/**
 * @module Embeddings from any OpenAI-compatible `/embeddings` endpoint: OpenAI itself, Ollama (`/v1`), vLLM,
 * LM Studio, Azure-style gateways. The request is LangChain's integration (`OpenAIEmbeddings` from
 * `@langchain/openai`, over OpenAI's SDK, with LangChain's retries and backoff); batching and reading the answer
 * stay ours (the overrides below), because `OpenAIEmbeddings.embedDocuments` takes the vectors in the order they
 * arrive (we order them by `index`, and refuse a reply with the wrong count) and would replace newlines in the texts
 * with spaces. Vectors are asked for as
 * floats: unasked, the SDK requests base64 and decodes whatever comes back as base64, which a server that ignores
 * `encoding_format` and answers with numbers turns into garbage.
 */
import type { EmbeddingsParams } from '@langchain/core/embeddings'
import { OpenAIEmbeddings } from '@langchain/openai'
import {
  openAiClientConfiguration,
  providerFailure,
  type OpenAiCompatibleSettings,
} from './openai-compatible-client.ts'

/** The endpoint (`baseUrl` ends before `/embeddings`, e.g. http://127.0.0.1:11434/v1), model and credentials. */
export interface OpenAiCompatibleEmbeddingsOptions extends EmbeddingsParams, OpenAiCompatibleSettings {
  model: string
  /** Texts per request. */
  batchSize?: number
}

export class OpenAiCompatibleEmbeddings extends OpenAIEmbeddings {
  readonly modelId: string

  /** @param provider - the configured provider name, part of the model id (`openai:text-embedding-3-small`) */
  constructor(provider: string, options: OpenAiCompatibleEmbeddingsOptions) {
    super({
      model: options.model,
      batchSize: options.batchSize ?? 64,
      timeout: options.timeoutMs ?? 30_000,
      maxRetries: options.maxRetries ?? 3,
      // Every batch at once, as before (the integration's default is two at a time).
      maxConcurrency: options.maxConcurrency ?? Infinity,
      ...openAiClientConfiguration(options),
    })
    this.modelId = `${provider}:${options.model}`
  }

  private async embedBatch(texts: string[]): Promise<number[][]> {
    const body = await this.embeddingWithRetry({ model: this.model, input: texts, encoding_format: 'float' }).catch(
      (error: unknown) => {
        throw providerFailure('embeddings', error)
      }
    )
    // Typed loosely: the body is whatever the server sent.
    const data = (body as { data?: typeof body.data }).data ?? []
    if (data.length !== texts.length)
      throw new Error(`embeddings response has ${data.length} vectors for ${texts.length} texts`)
    return [...data].sort((a, b) => a.index - b.index).map((d) => normalise(d.embedding))
  }

  override async embedDocuments(texts: string[]): Promise<number[][]> {
    const batches: string[][] = []
    for (let i = 0; i < texts.length; i += this.batchSize) batches.push(texts.slice(i, i + this.batchSize))
    const results = await Promise.all(batches.map((batch) => this.embedBatch(batch)))
    return results.flat()
  }

  override async embedQuery(text: string): Promise<number[]> {
    const [vector] = await this.embedBatch([text])
    return vector!
  }
}

/** L2-normalises a vector, so the stores' dot products are cosines whatever the provider returns. */
function normalise(vector: number[]): number[] {
  const norm = Math.sqrt(vector.reduce((sum, v) => sum + v * v, 0))
  return norm > 0 ? vector.map((v) => v / norm) : vector
}
