/**
 * @module The knowledge file reader as the worker uses it: every file is read in a reader process of its own
 * (sandboxed-reader.ts: a deadline, a memory budget the kernel enforces, a lower CPU priority), so no upload can hold
 * the event loop, the memory or the CPU that run every tenant's reminders, deliveries, agent runs and payments.
 *
 * In front of the readers, a bounded queue: files wait tenant by tenant, in turn — a free reader goes to the waiting
 * tenant with the fewest files being read, so a tenant whose files hold every reader cannot also take the next one
 * before another tenant's first — at most `waitingPerTenant` of one tenant and `waitingInAll` in all; past that `parse` refuses at once with KnowledgeReaderBusy, so the indexing
 * activity returns and its workflow waits on a durable timer, holding no worker slot and no memory. The same document
 * version asked for twice (an activity retried while its first attempt still waits) shares one reading; a caller that
 * gives up (its activity cancelled or timed out) takes its file out of the queue, or stops its reader when it was the
 * only one waiting for it (docs/ai.md, "Reading untrusted files").
 */
import { KnowledgeReaderBusy } from '../../domain/ai/knowledge/knowledge-errors.ts'
import type {
  DocumentParser,
  DocumentToParse,
  ParseOptions,
  ParsedDocument,
} from '../../domain/ai/knowledge/parsed-document.ts'
import { SandboxedReader, type ReaderLimits } from './sandboxed-reader.ts'

export interface SandboxLimits extends ReaderLimits {
  /** Files read at once, each in its own process. */
  processes: number
  /** Files one tenant may have waiting for a reader; another is refused (busy) until one starts. */
  waitingPerTenant: number
  /** Files of all tenants waiting for a reader. */
  waitingInAll: number
}

/** How long a refused caller is told to wait: about one file's reading. */
const BUSY_RETRY_AFTER_MS = 5_000

/** One file to read and everyone waiting for it. */
interface Job {
  document: DocumentToParse
  waiters: Set<Waiter>
  reader?: SandboxedReader
  /** Read (or failed): a caller giving up now changes nothing, and its reader may be reading another file. */
  done?: boolean
}

interface Waiter {
  resolve: (parsed: ParsedDocument) => void
  reject: (error: Error) => void
}

export class SandboxedDocumentParser implements DocumentParser {
  private readonly limits: SandboxLimits
  /** Waiting files by tenant, and the order in which tenants take their turns. */
  private readonly waiting = new Map<string, Job[]>()
  private readonly turns: string[] = []
  /** Files waiting or being read, by key: a second request for the same version joins the first. */
  private readonly byKey = new Map<string, Job>()
  private readonly idle: SandboxedReader[] = []
  /** Every reader process started and not yet known to have ended. */
  private readonly readers = new Set<SandboxedReader>()
  private reading = 0
  /** Files being read, by tenant: who gets the next free reader. */
  private readonly readingByTenant = new Map<string, number>()

  constructor(limits: SandboxLimits) {
    this.limits = limits
  }

  parse(document: DocumentToParse, options: ParseOptions = {}): Promise<ParsedDocument> {
    const { signal } = options
    if (signal?.aborted) return Promise.reject(signal.reason as Error)
    const existing = document.key === undefined ? undefined : this.byKey.get(document.key)
    let job: Job
    try {
      job = existing ?? this.enqueue(document)
    } catch (error) {
      return Promise.reject(error)
    }
    return new Promise<ParsedDocument>((resolve, reject) => {
      const waiter: Waiter = { resolve, reject }
      job.waiters.add(waiter)
      signal?.addEventListener('abort', () => this.giveUp(job, waiter, signal.reason as Error), { once: true })
      this.dispatch()
    })
  }

  accepts(document: Pick<DocumentToParse, 'tenantId' | 'key'>): boolean {
    return (document.key !== undefined && this.byKey.has(document.key)) || !this.full(document.tenantId)
  }

  /** Files waiting for a reader, by tenant (the worker's metrics). */
  waitingByTenant(): Map<string, number> {
    return new Map([...this.waiting].map(([tenantId, jobs]) => [tenantId, jobs.length]))
  }

  /** Stops every reader: idle ones and those reading (their files fail). Tests and shutdown. */
  async close(): Promise<void> {
    this.idle.length = 0
    for (const reader of this.readers) reader.kill()
    await Promise.resolve()
  }

  /** Queues a new file, or refuses it when its tenant, or everyone, has as many waiting as the bounds allow. */
  private enqueue(document: DocumentToParse): Job {
    if (this.full(document.tenantId)) throw new KnowledgeReaderBusy(BUSY_RETRY_AFTER_MS)
    const queue = this.waiting.get(document.tenantId)
    const job: Job = { document, waiters: new Set() }
    if (queue) queue.push(job)
    else {
      this.waiting.set(document.tenantId, [job])
      this.turns.push(document.tenantId)
    }
    if (document.key !== undefined) this.byKey.set(document.key, job)
    return job
  }

  /** Whether a new file of this tenant would have to wait beyond the queue's bounds (no reader free, queue full). */
  private full(tenantId: string): boolean {
    if (this.reading + this.waitingCount() < this.limits.processes) return false
    const ofTenant = this.waiting.get(tenantId)?.length ?? 0
    return ofTenant >= this.limits.waitingPerTenant || this.waitingCount() >= this.limits.waitingInAll
  }

  private waitingCount(): number {
    let count = 0
    for (const jobs of this.waiting.values()) count += jobs.length
    return count
  }

  /** One caller stops waiting; the file is dropped (or its reading stopped) when nobody else waits for it. */
  private giveUp(job: Job, waiter: Waiter, reason: Error): void {
    if (job.done || !job.waiters.delete(waiter)) return
    waiter.reject(reason)
    if (job.waiters.size > 0) return
    if (job.reader) job.reader.cancel(reason)
    else this.unqueue(job)
  }

  private unqueue(job: Job): void {
    const { tenantId, key } = job.document
    if (key !== undefined && this.byKey.get(key) === job) this.byKey.delete(key)
    const queue = this.waiting.get(tenantId)
    const at = queue?.indexOf(job) ?? -1
    if (at === -1) return
    queue!.splice(at, 1)
    if (queue!.length === 0) {
      this.waiting.delete(tenantId)
      this.turns.splice(this.turns.indexOf(tenantId), 1)
    }
  }

  /**
   * The oldest file of the waiting tenant with the fewest files being read (ties: whose turn comes first); the tenant
   * goes to the back of the line when it has more waiting.
   */
  private takeNext(): Job | undefined {
    let at = -1
    let fewest = Infinity
    for (let i = 0; i < this.turns.length; i++) {
      const reading = this.readingByTenant.get(this.turns[i]!) ?? 0
      if (reading < fewest) [at, fewest] = [i, reading]
    }
    if (at === -1) return undefined
    const [tenantId] = this.turns.splice(at, 1) as [string]
    const queue = this.waiting.get(tenantId)!
    const job = queue.shift()!
    if (queue.length > 0) this.turns.push(tenantId)
    else this.waiting.delete(tenantId)
    return job
  }

  private dispatch(): void {
    while (this.reading < this.limits.processes) {
      const job = this.takeNext()
      if (!job) return
      this.reading++
      this.countReading(job.document.tenantId, 1)
      void this.run(job)
    }
  }

  private async run(job: Job): Promise<void> {
    let reader = this.idle.pop()
    while (reader && !reader.usable) {
      this.readers.delete(reader)
      reader = this.idle.pop()
    }
    if (!reader) {
      reader = new SandboxedReader(this.limits)
      this.readers.add(reader)
    }
    job.reader = reader
    try {
      const parsed = await reader.read(job.document.mediaType, job.document.bytes)
      this.idle.push(reader)
      for (const waiter of job.waiters) waiter.resolve(parsed)
    } catch (error) {
      for (const waiter of job.waiters) waiter.reject(error as Error)
    } finally {
      job.done = true
      if (!reader.usable) this.readers.delete(reader)
      if (job.document.key !== undefined && this.byKey.get(job.document.key) === job)
        this.byKey.delete(job.document.key)
      this.reading--
      this.countReading(job.document.tenantId, -1)
      this.dispatch()
    }
  }

  private countReading(tenantId: string, change: 1 | -1): void {
    const count = (this.readingByTenant.get(tenantId) ?? 0) + change
    if (count === 0) this.readingByTenant.delete(tenantId)
    else this.readingByTenant.set(tenantId, count)
  }
}
