/**
 * @module The knowledge file reader as the worker and the API use it: every file is read in a worker thread
 * (parse-thread.mjs) under a deadline and a heap limit, so no upload can hold the event loop that runs every tenant's
 * reminders, deliveries, agent runs and payments. A thread that passes its deadline is terminated (V8 stops it even
 * inside a regular expression), one that runs out of heap ends with it, and either way the file fails with a reason the
 * centre can read; the next file gets a fresh thread. Files waiting for a thread are taken tenant by tenant, in turn,
 * so one tenant's hundred uploads do not queue another tenant's one behind them (docs/ai.md, "Reading untrusted files").
 */
import { Worker } from 'node:worker_threads'
import { KnowledgeParseError } from '../../domain/ai/knowledge/knowledge-errors.ts'
import type { DocumentParser, DocumentToParse, ParsedDocument } from '../../domain/ai/knowledge/parsed-document.ts'
import type { ReadLimits } from './read-document.ts'

export interface SandboxLimits extends ReadLimits {
  /** How long one file may take, from the moment a thread takes it. */
  timeoutMs: number
  /** The thread's JavaScript heap (V8's old generation). */
  maxHeapMb: number
  /** Files read at once, each in its own thread. */
  threads: number
}

interface Job {
  document: DocumentToParse
  resolve: (parsed: ParsedDocument) => void
  reject: (error: Error) => void
}

interface Reply {
  id?: number
  ready?: boolean
  parsed?: ParsedDocument
  error?: { parse: boolean; message: string }
}

/** One thread and the job it runs; a thread runs one file at a time. */
interface Slot {
  thread: Worker
  job?: { id: number; settle: (reply: Reply) => void }
}

const seconds = (ms: number) => Math.round(ms / 100) / 10

export class SandboxedDocumentParser implements DocumentParser {
  private readonly limits: SandboxLimits
  /** Waiting files by tenant, and the order in which tenants take their turns. */
  private readonly waiting = new Map<string, Job[]>()
  private readonly turns: string[] = []
  private readonly idle: Slot[] = []
  private busy = 0
  private nextId = 0

  constructor(limits: SandboxLimits) {
    this.limits = limits
  }

  parse(document: DocumentToParse): Promise<ParsedDocument> {
    return new Promise<ParsedDocument>((resolve, reject) => {
      const queue = this.waiting.get(document.tenantId)
      if (queue) queue.push({ document, resolve, reject })
      else {
        this.waiting.set(document.tenantId, [{ document, resolve, reject }])
        this.turns.push(document.tenantId)
      }
      this.dispatch()
    })
  }

  /** Files waiting for a thread, by tenant (the worker's metrics). */
  waitingByTenant(): Map<string, number> {
    return new Map([...this.waiting].map(([tenantId, jobs]) => [tenantId, jobs.length]))
  }

  /** Stops every idle thread (tests, shutdown); a file being read finishes first. */
  async close(): Promise<void> {
    await Promise.all(this.idle.splice(0).map((slot) => slot.thread.terminate()))
  }

  /** The next tenant's oldest file: tenants take turns, a tenant with more waiting goes to the back of the line. */
  private takeNext(): Job | undefined {
    const tenantId = this.turns.shift()
    if (tenantId === undefined) return undefined
    const queue = this.waiting.get(tenantId)!
    const job = queue.shift()!
    if (queue.length > 0) this.turns.push(tenantId)
    else this.waiting.delete(tenantId)
    return job
  }

  private dispatch(): void {
    while (this.busy < this.limits.threads) {
      const job = this.takeNext()
      if (!job) return
      this.busy++
      this.run(job)
    }
  }

  private spawn(): Slot {
    const thread = new Worker(new URL('./parse-thread.mjs', import.meta.url), {
      resourceLimits: { maxOldGenerationSizeMb: this.limits.maxHeapMb, maxYoungGenerationSizeMb: 16 },
    })
    const slot: Slot = { thread }
    thread.on('message', (reply: Reply) => {
      if (reply.id !== undefined && reply.id === slot.job?.id) slot.job.settle(reply)
    })
    const died = (message: string) => slot.job?.settle({ error: { parse: true, message } })
    thread.on('error', (error: Error & { code?: string }) =>
      died(
        error.code === 'ERR_WORKER_OUT_OF_MEMORY'
          ? `Reading the file needed more than ${this.limits.maxHeapMb} MB of memory; it is not indexed.`
          : `The file could not be read: ${error.message}`
      )
    )
    thread.on('exit', () => died('The file could not be read (its reader stopped).'))
    return slot
  }

  private run(job: Job): void {
    const slot = this.idle.pop() ?? this.spawn()
    slot.thread.ref()
    const id = this.nextId++
    const { limits } = this
    const timer = setTimeout(() => {
      settle({
        error: {
          parse: true,
          message: `Reading the file took longer than ${seconds(limits.timeoutMs)} s; it is not indexed. Split it, or save it as plain text or Markdown.`,
        },
      })
    }, limits.timeoutMs)
    let done = false
    const settle = (reply: Reply) => {
      if (done) return
      done = true
      clearTimeout(timer)
      slot.job = undefined
      this.busy--
      if (reply.parsed) {
        slot.thread.unref()
        this.idle.push(slot)
        job.resolve(reply.parsed)
      } else {
        // A thread that failed a file is not trusted with the next one: whatever the file did to it ends with it.
        void slot.thread.terminate()
        const message = reply.error?.message ?? 'The file could not be read.'
        job.reject(reply.error?.parse ? new KnowledgeParseError(message) : new Error(message))
      }
      this.dispatch()
    }
    slot.job = { id, settle }
    const { mediaType, bytes } = job.document
    const readLimits: ReadLimits = {
      maxPages: limits.maxPages,
      maxTextChars: limits.maxTextChars,
      maxInflatedBytes: limits.maxInflatedBytes,
    }
    slot.thread.postMessage({ id, mediaType, bytes, limits: readLimits })
  }
}
