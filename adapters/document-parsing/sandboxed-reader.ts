/**
 * @module One reader process (reader-process.mjs) as its parent sees it: started with a lower CPU priority, no core
 * dumps and an environment without secrets; it reads one file at a time under a deadline and a memory budget the parent
 * measures (the process's resident memory, sampled from /proc while it reads) and the kernel enforces (its data segment
 * limit, set by the child itself once pdf.js is loaded). Past either, the parent kills it and the file fails with a
 * reason the centre can read. A reader that failed a file is not trusted with the next one: the pool starts another.
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { KnowledgeParseError } from '../../domain/ai/knowledge/knowledge-errors.ts'
import type { KnowledgeMediaType } from '../../domain/ai/knowledge/media-types.ts'
import type { ParsedDocument } from '../../domain/ai/knowledge/parsed-document.ts'
import type { ReadLimits } from './read-document.ts'

export interface ReaderLimits extends ReadLimits {
  /** Added to the worker's nice value: readers yield the CPU to everything else on the machine. */
  nice: number
  /** How long one file may take, from the moment its reader starts on it. */
  timeoutMs: number
  /** Memory one file may add to a ready reader (resident memory, and the kernel's data-segment limit). */
  maxMemoryMb: number
}

interface Reply {
  id?: number
  ready?: boolean
  dataLimitBytes?: number | null
  parsed?: ParsedDocument
  error?: { parse: boolean; message: string }
}

const ENTRY = new URL('./reader-process.mjs', import.meta.url).pathname
/** How often a reading process's memory is looked at: a bomb inflates some hundreds of MB per second. */
const MEMORY_SAMPLE_MS = 50

const seconds = (ms: number) => Math.round(ms / 100) / 10

/** A process's resident memory in bytes, from /proc; undefined where there is none (not Linux) or it has gone. */
function residentBytes(pid: number): number | undefined {
  try {
    const kb = /VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1]
    return kb === undefined ? undefined : Number(kb) * 1024
  } catch {
    return undefined
  }
}

export class SandboxedReader {
  private readonly child: ChildProcess
  private readonly limits: ReaderLimits
  private readonly ready: Promise<void>
  private residentAtReady = 0
  private nextId = 0
  private exited = false
  private killed = false
  /** The end of what the process wrote to stderr. */
  private stderr = ''
  /** The most the file being read has grown the process's resident memory, as sampled. */
  private grown = 0
  /** The file being read, settled by its reply, its deadline, its memory or the process's end. */
  private current?: { id: number; fail: (error: Error) => void; settle: (reply: Reply) => void }

  constructor(limits: ReaderLimits) {
    this.limits = limits
    this.child = spawn(
      '/bin/sh',
      [
        '-c',
        `ulimit -c 0; exec nice -n ${limits.nice} "$0" "$@"`,
        process.execPath,
        // V8's own heap stops near the budget too, with an error the reader reports rather than a kernel refusal.
        `--max-old-space-size=${limits.maxMemoryMb}`,
        ENTRY,
      ],
      {
        // Its errors are kept for the reason when it cannot start; V8's out-of-memory report is not worth a log line.
        stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
        serialization: 'advanced',
        // Nothing of the worker's environment (database URLs, keys): the reader needs a PATH for prlimit, no more.
        env: { PATH: process.env.PATH ?? '/usr/bin:/bin', READER_MEMORY_BUDGET_MB: String(limits.maxMemoryMb) },
      }
    )
    this.ready = new Promise((resolve, reject) => {
      const onReady = (reply: Reply) => {
        if (!reply.ready) return
        this.child.off('message', onReady)
        this.residentAtReady = residentBytes(this.child.pid!) ?? 0
        resolve()
      }
      this.child.on('message', onReady)
      this.child.once('exit', () =>
        reject(new Error(`the knowledge file reader stopped before it was ready: ${this.stderr.trim().slice(-500)}`))
      )
    })
    this.child.stderr!.setEncoding('utf8')
    this.child.stderr!.on('data', (chunk: string) => {
      this.stderr = (this.stderr + chunk).slice(-2000)
    })
    // A reader that never became ready is reported by the file that waited for it.
    this.ready.catch(() => undefined)
    this.child.on('message', (reply: Reply) => {
      if (reply.id !== undefined && reply.id === this.current?.id) this.current.settle(reply)
    })
    // A message to a process that just died: its exit, just below, fails the file.
    this.child.on('error', () => undefined)
    this.child.on('exit', (code, signal) => {
      this.exited = true
      const stop = { code, signal, stderr: this.stderr, grownBytes: this.grown, budgetBytes: this.budgetBytes }
      this.current?.fail(
        new KnowledgeParseError(
          stoppedByMemory(stop)
            ? this.outOfMemoryReason()
            : `The file could not be read (its reader stopped: ${signal ?? `exit ${code}`}); it is not indexed.`
        )
      )
    })
  }

  /** Whether this reader can take another file. */
  get usable(): boolean {
    return !this.exited && !this.killed
  }

  /** The process id, for the worker's metrics and the tests. */
  get pid(): number | undefined {
    return this.child.pid
  }

  /**
   * Reads one file; rejects with KnowledgeParseError when the file is at fault (a limit, a bad file), with an Error
   * when the reader itself failed (it could not start). Settling anything but a parse kills the process.
   */
  async read(mediaType: KnowledgeMediaType, bytes: Uint8Array): Promise<ParsedDocument> {
    if (this.current) throw new Error('a reader reads one file at a time')
    await this.ready
    const id = this.nextId++
    const { limits } = this
    return new Promise<ParsedDocument>((resolve, reject) => {
      const deadline = setTimeout(
        () =>
          this.current?.fail(
            new KnowledgeParseError(
              `Reading the file took longer than ${seconds(limits.timeoutMs)} s; it is not indexed. Split it, or save it as plain text or Markdown.`
            )
          ),
        limits.timeoutMs
      )
      this.grown = 0
      const watch = setInterval(() => {
        const resident = residentBytes(this.child.pid!)
        if (resident === undefined) return
        this.grown = Math.max(this.grown, resident - this.residentAtReady)
        if (this.grown > this.budgetBytes) this.current?.fail(new KnowledgeParseError(this.outOfMemoryReason()))
      }, MEMORY_SAMPLE_MS)
      const finish = () => {
        clearTimeout(deadline)
        clearInterval(watch)
        this.current = undefined
      }
      this.current = {
        id,
        fail: (error) => {
          finish()
          this.kill()
          reject(error)
        },
        settle: (reply) => {
          if (reply.parsed) {
            finish()
            resolve(reply.parsed)
            return
          }
          const message = reply.error?.message ?? 'The file could not be read.'
          this.current!.fail(reply.error?.parse ? new KnowledgeParseError(message) : new Error(message))
        },
      }
      const { maxPages, maxTextChars, maxInflatedBytes } = limits
      this.child.send({ id, mediaType, bytes, limits: { maxPages, maxTextChars, maxInflatedBytes } })
    })
  }

  /** Stops the file being read (or about to be, its process starting) as cancelled: the process is killed. */
  cancel(reason: Error): void {
    if (this.current) this.current.fail(reason)
    else this.kill()
  }

  /** Ends the process at once (SIGKILL: a file being read gets no say). */
  kill(): void {
    this.killed = true
    if (!this.exited) this.child.kill('SIGKILL')
  }

  private get budgetBytes(): number {
    return this.limits.maxMemoryMb * 1024 * 1024
  }

  private outOfMemoryReason(): string {
    return `Reading the file needed more than ${this.limits.maxMemoryMb} MB of memory; it is not indexed.`
  }
}

/** How a reader process ended mid-file, and what the file had cost it by the last sample. */
export interface ReaderStop {
  code: number | null
  signal: NodeJS.Signals | null
  /** The end of what it wrote to stderr. */
  stderr: string
  grownBytes: number
  budgetBytes: number
}

/**
 * Whether a reader that died mid-file was stopped by its memory budget. V8 aborts when its heap cannot grow
 * (SIGABRT, or SIGTRAP for a failed check); an allocation the kernel refuses under RLIMIT_DATA can end it otherwise
 * too (a fault where a buffer could not be mapped: a CI run saw the shared-stream bomb's reader end by neither, and
 * its reason, then without the signal, said only that the reader stopped). Its words, or a file that had already
 * taken more than half the budget when last sampled (every 50 ms, later on a busy machine), say it was the memory.
 */
export function stoppedByMemory(stop: ReaderStop): boolean {
  if (stop.signal === 'SIGABRT' || stop.signal === 'SIGTRAP' || stop.code === 134 || stop.code === 133) return true
  if (/out of memory|allocation failed|cannot allocate memory/i.test(stop.stderr)) return true
  return stop.grownBytes > stop.budgetBytes / 2
}
