/**
 * @module Configuration of the AI platform (docs/ai.md): which embedding model, answering model and vector store
 * the assistants use, and the knowledge upload limits. Spread into the process configuration (infra/config.ts) so
 * it is validated at boot with everything else. The defaults work offline: nothing is downloaded or called.
 */
import { z } from 'zod'

const optionalString = z.preprocess((v) => (v === '' ? undefined : v), z.string().optional())
const optionalUrl = z.preprocess((v) => (v === '' ? undefined : v), z.string().url().optional())

export const AI_CONFIG_SHAPE = {
  /**
   * `local`: the built-in lexical embeddings (offline, deterministic); `sentence`: the sentence model
   * (all-MiniLM-L6-v2 int8, in process; scripts/ai/obtain-sentence-model.sh), or the lexical embeddings, said in the
   * log, when its files are absent; `openai`: any OpenAI-compatible /embeddings API; `ollama`: Ollama's /api/embed.
   */
  AI_EMBEDDINGS_PROVIDER: z.enum(['local', 'sentence', 'openai', 'ollama']).default('sentence'),
  /** The sentence model's files; default ${XDG_CACHE_HOME:-$HOME/.cache}/therapy-care/sentence-model-…, where the script puts them. */
  AI_SENTENCE_MODEL_DIR: optionalString,
  AI_EMBEDDINGS_MODEL: optionalString,
  /** Base URL of the embeddings API, e.g. https://api.openai.com/v1 or http://localhost:11434. */
  AI_EMBEDDINGS_URL: optionalUrl,
  AI_EMBEDDINGS_API_KEY: optionalString,
  /** `extractive`: answers composed only of retrieved sentences (offline); otherwise a chat model grounded in them. */
  AI_CHAT_PROVIDER: z.enum(['extractive', 'openai', 'anthropic', 'ollama']).default('extractive'),
  AI_CHAT_MODEL: optionalString,
  AI_CHAT_URL: optionalUrl,
  AI_CHAT_API_KEY: optionalString,
  /** How long a knowledge question waits for the chat model before the offline answerer answers it instead. */
  AI_CHAT_TIMEOUT_MS: z.coerce.number().int().min(1).max(600_000).default(30_000),
  /** Most tokens a chat model's reply may have (answers and agent decisions): the bound on a call's cost. */
  AI_CHAT_MAX_TOKENS: z.coerce.number().int().min(16).max(32_768).default(1024),
  /** `auto`: pgvector when the database has the store's table, else plain PostgreSQL; or force one. */
  AI_VECTOR_STORE: z.enum(['auto', 'pgvector', 'postgres']).default('auto'),
  /** Largest knowledge upload request (all files together); replaces REQUEST_BODY_LIMIT_BYTES on those routes. */
  KNOWLEDGE_UPLOAD_LIMIT_BYTES: z.coerce
    .number()
    .int()
    .positive()
    .default(25 * 1024 * 1024),
  /** Largest single knowledge file. */
  KNOWLEDGE_MAX_FILE_BYTES: z.coerce
    .number()
    .int()
    .positive()
    .default(10 * 1024 * 1024),
  /** Most files in one upload. */
  KNOWLEDGE_MAX_FILES: z.coerce.number().int().positive().max(100).default(10),
  /**
   * Reading an uploaded file (docs/ai.md, "Reading untrusted files"): it runs in a reader process that is killed after
   * this long or when the file makes it use this much more memory than it holds when ready (the kernel refuses more), and
   * a file that exceeds a limit ends FAILED with the reason.
   */
  KNOWLEDGE_PARSE_TIMEOUT_MS: z.coerce.number().int().positive().default(20_000),
  KNOWLEDGE_PARSE_MAX_MEMORY_MB: z.coerce.number().int().min(64).default(512),
  /** Added to the worker's nice value for its reader processes, so they yield the CPU to everything else. */
  KNOWLEDGE_PARSE_NICE: z.coerce.number().int().min(0).max(19).default(10),
  /**
   * Files read at once by one worker (each in its own process); waiting files are taken tenant by tenant. Two: with
   * one, twelve PDF bombs and 200 files of one tenant took 200 s to settle, with two 92 s (docs/benchmarks.md).
   */
  KNOWLEDGE_PARSE_PROCESSES: z.coerce.number().int().positive().max(16).default(2),
  /** Files waiting for a reader, of one tenant and in all; past either, indexing waits on a durable timer. */
  KNOWLEDGE_PARSE_WAITING_PER_TENANT: z.coerce.number().int().nonnegative().default(2),
  KNOWLEDGE_PARSE_WAITING: z.coerce.number().int().nonnegative().default(8),
  /**
   * Indexing activities one worker runs at once, on a task queue of their own (`<TEMPORAL_TASK_QUEUE>-knowledge`): they
   * never take the slots that payments, reminders and deliveries use.
   */
  KNOWLEDGE_INDEXING_SLOTS: z.coerce.number().int().positive().max(64).default(4),
  /** Days a declined question's text is kept for the unanswered report (PHI), then deleted by the API's hourly sweep. */
  KNOWLEDGE_UNANSWERED_RETENTION_DAYS: z.coerce.number().int().min(1).max(3650).default(90),
  /** Most characters of text a file may hold (a PDF's extraction stops there), PDF pages, and inflated PDF streams. */
  KNOWLEDGE_MAX_TEXT_CHARS: z.coerce.number().int().positive().default(5_000_000),
  KNOWLEDGE_MAX_PDF_PAGES: z.coerce.number().int().positive().default(2000),
  KNOWLEDGE_MAX_INFLATED_BYTES: z.coerce
    .number()
    .int()
    .positive()
    .default(200 * 1024 * 1024),
  /**
   * Quotas per tenant (docs/rate-limits.md, "Quotas"): the bytes of every knowledge file it stores, and the documents
   * of one assistant, refused at upload (409 `quota_exceeded`); the chunks of all its documents, checked when a
   * document has been chunked (the document ends FAILED naming the quota).
   */
  KNOWLEDGE_BYTES_PER_TENANT: z.coerce
    .number()
    .int()
    .positive()
    .default(500 * 1024 * 1024),
  KNOWLEDGE_CHUNKS_PER_TENANT: z.coerce.number().int().positive().default(200_000),
  KNOWLEDGE_DOCUMENTS_PER_ASSISTANT: z.coerce.number().int().positive().default(500),
}

const AiConfigSchema = z.object(AI_CONFIG_SHAPE)

/** The AI settings, as parsed. */
export type AiConfig = z.infer<typeof AiConfigSchema>

/** The AI settings of a parsed configuration (or of an environment map, for tools like the evaluation). */
export const aiConfigOf = (source: Record<string, unknown>): AiConfig => AiConfigSchema.parse(source)
