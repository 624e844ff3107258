/**
 * @module The contract of the knowledge indexing workflow, shared by the API (which starts it through the outbox)
 * and the workflow: ids only in the input, never a file's content or name.
 */

export const KNOWLEDGE_INDEXING_WORKFLOW = 'knowledgeIndexingWorkflow'
/** Its `WorkflowKind` search attribute (snake_case since its first runs: visibility queries of old runs match it). */
export const KNOWLEDGE_INDEXING_KIND = 'knowledge_indexing'

/** The task queue of the indexing activity: its own, so parsing and embedding never take the slots of payments. */
export const knowledgeTaskQueue = (mainTaskQueue: string) => `${mainTaskQueue}-knowledge`

/** One workflow per document version: starting it twice is a no-op, a replacement starts a new one. */
export const knowledgeIndexingWorkflowId = (documentId: string, version: number) =>
  `knowledge-index-${documentId}-v${version}`

export interface KnowledgeIndexingInput {
  tenantId: string
  documentId: string
  /** The version to index; an older one is not indexed (the document was replaced meanwhile). */
  version: number
}

export type KnowledgeIndexingOutcome =
  | { status: 'READY'; chunkCount: number }
  | { status: 'FAILED'; reason: string }
  /** The document was replaced by a newer version, whose own workflow indexes it. */
  | { status: 'SUPERSEDED' }
  /** The document (or its assistant) was deleted. */
  | { status: 'GONE' }
  /**
   * The file readers' queue was full (this tenant's share of it, or all of it): nothing was done; the workflow asks
   * again after `retryAfterMs` on a durable timer, holding no worker slot meanwhile.
   */
  | { status: 'DEFERRED'; retryAfterMs: number }

/**
 * The knowledge indexing activities (activities/knowledge-activities.ts) as the workflow proxies them. The factory declares that it returns this
 * interface, so the compiler checks the two agree. Names, arguments and results are in recorded histories: changing
 * one breaks the replay of runs in flight.
 */
export interface KnowledgeActivities {
  /** Indexes one document version; a file that cannot be parsed is an outcome (FAILED with its reason), not an error. */
  indexKnowledgeDocument: (input: KnowledgeIndexingInput) => Promise<KnowledgeIndexingOutcome>
  /** Marks a version FAILED with a reason (unless it was replaced or deleted meanwhile). Idempotent. */
  markKnowledgeDocumentFailed: (input: KnowledgeIndexingInput & { reason: string }) => Promise<KnowledgeIndexingOutcome>
}
