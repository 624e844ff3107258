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
