// A knowledge file's reader process (adapters/document-parsing/reader-pool.ts starts it): the file is untrusted, so it
// is read here, in a process of its own with a lower CPU priority, no secrets in its environment, a memory limit the
// kernel enforces and a parent that kills it at a deadline, never on the event loop that runs every tenant's
// activities. Plain JavaScript that loads the TypeScript reader through tsx's API: a child is a fresh Node without the
// TypeScript loader (tsx, vitest) of the process that starts it.
//
// At start it loads pdf.js (most of its memory) and then limits its own data segment to what it holds now plus
// READER_MEMORY_BUDGET_MB (RLIMIT_DATA, through util-linux's prlimit): an allocation past it fails in the kernel,
// whatever the file's spelling. Messages in: { id, mediaType, bytes, limits }. Out: { ready, dataLimitBytes } once,
// then { id, parsed } or { id, error: { parse, message } }, where `parse` says the file itself is at fault
// (KnowledgeParseError: FAILED with the message, not retried).
import { execFileSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { tsImport } from 'tsx/esm/api'

const { readDocument } = await tsImport('./read-document.ts', import.meta.url)
await import('pdf-parse')

/** Limits this process's data segment to what it uses now plus the budget; null where the system cannot. */
function limitData(budgetMb) {
  try {
    const usedKb = Number(/VmData:\s+(\d+)/.exec(readFileSync('/proc/self/status', 'utf8'))[1])
    const limit = (usedKb + budgetMb * 1024) * 1024
    execFileSync('prlimit', [`--pid=${process.pid}`, `--data=${limit}:${limit}`], { stdio: 'ignore' })
    return limit
  } catch {
    return null
  }
}

const budgetMb = Number(process.env.READER_MEMORY_BUDGET_MB)
const dataLimitBytes = limitData(budgetMb)
const outOfMemory = `Reading the file needed more than ${budgetMb} MB of memory; it is not indexed.`

process.on('message', async ({ id, mediaType, bytes, limits }) => {
  try {
    process.send({ id, parsed: await readDocument(mediaType, bytes, limits) })
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error)
    // The kernel refused memory past the limit: the file's fault, said as such (pdf.js wraps it in its own errors).
    if (/allocation failed|out of memory/i.test(message))
      process.send({ id, error: { parse: true, message: outOfMemory } })
    else process.send({ id, error: { parse: error instanceof Error && error.name === 'KnowledgeParseError', message } })
  }
})
// The parent went away (a crash, a kill): nothing is left to read for.
process.on('disconnect', () => process.exit(0))
process.send({ ready: true, dataLimitBytes })
