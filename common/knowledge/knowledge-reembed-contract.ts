/**
 * @module The contract of the knowledge re-embedding workflow (docs/ai.md, "Changing the embedding model"), shared by
 * the API (which starts it through the outbox when an assistant's knowledge lags the configured model), the workflow
 * and its activities: ids and model ids only, never a document's content or name.
 */
import { defineQuery } from '@temporalio/workflow'

export const KNOWLEDGE_REEMBED_WORKFLOW = 'knowledgeReembedWorkflow'
export const KNOWLEDGE_REEMBED_KIND = 'knowledge_reembed'

/** One run per assistant and target model: recorded once per change of model, restarted if it changes back. */
export const knowledgeReembedWorkflowId = (tenantId: string, assistantId: string, toModel: string) =>
  `knowledge-reembed:${tenantId}:${assistantId}:${toModel}`

export interface KnowledgeReembedInput {
  tenantId: string
  assistantId: string
  /** The model every document is embedded with again, and the assistant's model after the flip. */
  toModel: string
}

/** What the listing activity found: the documents still to embed, or why there is nothing to do. */
export type ReembedListing =
  | { status: 'LISTED'; documentIds: string[]; alreadyDone: number }
  /** The assistant already searches with the target model (a run after its flip, or a retry). */
  | { status: 'CURRENT' }
  /** Another target was recorded since (the configuration changed again): that run does the work. */
  | { status: 'SUPERSEDED' }
  /** The assistant was deleted. */
  | { status: 'GONE' }

/** What became of one document: embedded now, already embedded with the target, or not indexed (skipped). */
export type DocumentReembedOutcome = 'EMBEDDED' | 'ALREADY' | 'SKIPPED'

/** The flip's outcome: done, or documents that still lack the target's vectors (indexed meanwhile by another model). */
export type ReembedCompletion =
  | { status: 'FLIPPED'; documents: number; removedVectors: number }
  | { status: 'PENDING'; documentIds: string[] }
  | { status: 'SUPERSEDED' }
  | { status: 'GONE' }

export type KnowledgeReembedResult =
  { status: 'FLIPPED'; documents: number } | { status: 'CURRENT' | 'SUPERSEDED' | 'GONE' }

/** Progress for operators: the workflow's query, and its current details in the Temporal UI. */
export interface KnowledgeReembedProgress {
  toModel: string
  /** Documents that have vectors of the target model. */
  done: number
  total: number
  state: 'EMBEDDING' | 'FLIPPED' | 'ENDED'
}

export const knowledgeReembedProgressQuery = defineQuery<KnowledgeReembedProgress>('knowledgeReembedProgress')

/** One line for the run's current details: ids and counts only. */
export const describeReembedProgress = (progress: KnowledgeReembedProgress): string =>
  progress.state === 'EMBEDDING'
    ? `Embedding ${progress.done}/${progress.total} documents with ${progress.toModel}; queries use the previous model`
    : progress.state === 'FLIPPED'
      ? `Done: ${progress.total} documents searched with ${progress.toModel}; the previous model's vectors removed`
      : 'Ended without a flip (the assistant was deleted, or another model was configured since)'

/**
 * The knowledge re-embedding activities (activities/knowledge-reembed-activities.ts) as the workflow proxies them. The factory declares that it returns this
 * interface, so the compiler checks the two agree. Names, arguments and results are in recorded histories: changing
 * one breaks the replay of runs in flight.
 */
export interface KnowledgeReembedActivities {
  /** The documents without vectors of the target model, or why there is nothing to do. */
  listKnowledgeToReembed: (input: KnowledgeReembedInput) => Promise<ReembedListing>
  /** Embeds one document with the target model beside its old vectors (idempotent: ALREADY when done). */
  reembedKnowledgeDocument: (input: KnowledgeReembedInput & { documentId: string }) => Promise<DocumentReembedOutcome>
  /** Flips the assistant to the target model and removes the old vectors, once every document has new ones. */
  completeKnowledgeReembed: (input: KnowledgeReembedInput) => Promise<ReembedCompletion>
}
