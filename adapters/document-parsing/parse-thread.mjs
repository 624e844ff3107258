// A knowledge file's parse thread (adapters/document-parsing/sandboxed-parser.ts starts it): the file is untrusted, so
// it is read here, where the process that started the thread can stop it at a deadline and V8 bounds its heap, never
// on the event loop that runs every tenant's activities. Plain JavaScript that loads the TypeScript reader through
// tsx's API: a worker thread is a fresh Node without the TypeScript loader (tsx, vitest) of the process that starts it.
//
// Messages in: { id, mediaType, bytes, limits }. Out: { id, parsed } or { id, error: { parse, message } }, where
// `parse` says the file itself is at fault (KnowledgeParseError: FAILED with the message, not retried).
import { parentPort } from 'node:worker_threads'
import { tsImport } from 'tsx/esm/api'

const { readDocument } = await tsImport('./read-document.ts', import.meta.url)

parentPort.on('message', async ({ id, mediaType, bytes, limits }) => {
  try {
    parentPort.postMessage({ id, parsed: await readDocument(mediaType, bytes, limits) })
  } catch (error) {
    const parse = error instanceof Error && error.name === 'KnowledgeParseError'
    parentPort.postMessage({ id, error: { parse, message: error instanceof Error ? error.message : String(error) } })
  }
})
parentPort.postMessage({ ready: true })
