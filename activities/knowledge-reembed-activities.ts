/**
 * @module Activities of the knowledge re-embedding workflow (docs/ai.md, "Changing the embedding model"): list what
 * is left, embed one document with the target model, flip the assistant. Built by a factory over the worker's
 * database and AI runtime (which knows the models this process can run); every query runs in a unit of work scoped
 * to the workflow's tenant.
 */
import { whileBeating } from './heartbeat.ts'
import type { AiRuntime } from '../domain/ai/ai-runtime.ts'
import { completeReembed, listDocumentsToReembed, reembedDocument } from '../domain/ai/knowledge/reembed-knowledge.ts'
import type { Db } from '../infra/db.ts'
import type {
  DocumentReembedOutcome,
  KnowledgeReembedActivities,
  KnowledgeReembedInput,
  ReembedCompletion,
  ReembedListing,
} from '../common/knowledge/knowledge-reembed-contract.ts'

export interface KnowledgeReembedActivityDeps {
  db: Db
  ai: AiRuntime
}

/** How often a document's activity tells Temporal it is alive while the model runs (its heartbeat timeout is 15 s). */
const HEARTBEAT_MS = 5000

/** Creates the re-embedding activities: the interface the re-embedding workflow proxies (its contract). */
export function createKnowledgeReembedActivities({ db, ai }: KnowledgeReembedActivityDeps): KnowledgeReembedActivities {
  return {
    /** The documents without vectors of the target model, or why there is nothing to do. */
    async listKnowledgeToReembed(input: KnowledgeReembedInput): Promise<ReembedListing> {
      return listDocumentsToReembed(db, input)
    },

    /**
     * Embeds one document with the target model beside its old vectors. Idempotent (a document already embedded is
     * `ALREADY`); throws, to be retried, when this worker cannot run the model.
     */
    async reembedKnowledgeDocument(
      input: KnowledgeReembedInput & { documentId: string }
    ): Promise<DocumentReembedOutcome> {
      // One model call may take longer than the heartbeat timeout: the beat is kept by a timer, not by progress.
      return whileBeating(HEARTBEAT_MS, () => reembedDocument(db, ai, input))
    },

    /** Flips the assistant to the target model and removes the old vectors, once every document has new ones. */
    async completeKnowledgeReembed(input: KnowledgeReembedInput): Promise<ReembedCompletion> {
      return completeReembed(db, ai, input)
    },
  }
}
