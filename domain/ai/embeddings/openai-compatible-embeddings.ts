/**
 * @module Embeddings from any OpenAI-compatible `/embeddings` endpoint: OpenAI itself, Ollama (`/v1`), vLLM,
 * LM Studio, Azure-style gateways. A small LangChain `Embeddings` subclass over `fetch` rather than a provider SDK,
 * so the project carries no provider dependency and the request is plain to see; LangChain's AsyncCaller gives
 * it retries with backoff and a concurrency limit.
 */
import { Embeddings, type EmbeddingsParams } from '@langchain/core/embeddings'

export interface OpenAiCompatibleEmbeddingsOptions extends EmbeddingsParams {
  /** Base URL ending before `/embeddings`, e.g. https://api.openai.com/v1 or http://127.0.0.1:11434/v1. */
  baseUrl: string
  model: string
  apiKey?: string
  /** Texts per request. */
  batchSize?: number
  /** Injectable for tests. */
  fetch?: typeof fetch
  timeoutMs?: number
}

interface EmbeddingsResponse {
  data?: Array<{ index: number; embedding: number[] }>
}

export class OpenAiCompatibleEmbeddings extends Embeddings {
  readonly modelId: string
  private readonly options: OpenAiCompatibleEmbeddingsOptions

  /** @param provider - the configured provider name, part of the model id (`openai:text-embedding-3-small`) */
  constructor(provider: string, options: OpenAiCompatibleEmbeddingsOptions) {
    super({ maxRetries: 3, ...options })
    this.options = options
    this.modelId = `${provider}:${options.model}`
  }

  private async embedBatch(texts: string[]): Promise<number[][]> {
    const { baseUrl, model, apiKey, timeoutMs = 30_000 } = this.options
    const doFetch = this.options.fetch ?? fetch
    const response = await doFetch(`${baseUrl.replace(/\/+$/, '')}/embeddings`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', ...(apiKey ? { Authorization: `Bearer ${apiKey}` } : {}) },
      body: JSON.stringify({ model, input: texts }),
      signal: AbortSignal.timeout(timeoutMs),
    })
    if (!response.ok) throw new Error(`embeddings request failed: HTTP ${response.status}`)
    const body = (await response.json()) as EmbeddingsResponse
    const data = body.data ?? []
    if (data.length !== texts.length)
      throw new Error(`embeddings response has ${data.length} vectors for ${texts.length} texts`)
    return [...data].sort((a, b) => a.index - b.index).map((d) => normalise(d.embedding))
  }

  async embedDocuments(texts: string[]): Promise<number[][]> {
    const size = this.options.batchSize ?? 64
    const batches: string[][] = []
    for (let i = 0; i < texts.length; i += size) batches.push(texts.slice(i, i + size))
    const results = await Promise.all(batches.map((batch) => this.caller.call(() => this.embedBatch(batch))))
    return results.flat()
  }

  async embedQuery(text: string): Promise<number[]> {
    const [vector] = await this.caller.call(() => this.embedBatch([text]))
    return vector!
  }
}

/** L2-normalises a vector, so the stores' dot products are cosines whatever the provider returns. */
function normalise(vector: number[]): number[] {
  const norm = Math.sqrt(vector.reduce((sum, v) => sum + v * v, 0))
  return norm > 0 ? vector.map((v) => v / norm) : vector
}
