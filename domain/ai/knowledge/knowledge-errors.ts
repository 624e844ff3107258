/**
 * @module Why a knowledge file could not be indexed. The message is the document's `failureReason`, shown to the
 * centre that uploaded it, so it says what is wrong with the file and never echoes its content.
 */

/** A file that parses to nothing usable: corrupt, encrypted, not text, empty. Retrying cannot help. */
export class KnowledgeParseError extends Error {
  constructor(reason: string) {
    super(reason)
    this.name = 'KnowledgeParseError'
  }
}

/**
 * The file readers are busy with as many waiting files as their queue holds for this tenant (or in all): nothing is
 * wrong with the file, it is read later. The indexing workflow waits `retryAfterMs` on a durable timer, holding no
 * worker slot, and asks again.
 */
export class KnowledgeReaderBusy extends Error {
  readonly retryAfterMs: number
  constructor(retryAfterMs: number) {
    super('the knowledge file readers are busy; try again later')
    this.name = 'KnowledgeReaderBusy'
    this.retryAfterMs = retryAfterMs
  }
}
