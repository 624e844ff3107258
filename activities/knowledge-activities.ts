/**
 * @module Activities of the knowledge indexing workflow: parse, chunk, embed and store one document version, and
 * mark a version FAILED when indexing keeps failing. Built by a factory over the worker's database and AI runtime.
 * Every query runs in a unit of work scoped to the workflow's tenant.
 */
import { Context } from '@temporalio/activity'
import { indexDocument, markDocumentFailed } from '../domain/ai/knowledge/index-document.ts'
import type { AiRuntime } from '../domain/ai/ai-runtime.ts'
import type { Db } from '../infra/db.ts'
import type {
  KnowledgeActivities,
  KnowledgeIndexingInput,
  KnowledgeIndexingOutcome,
} from '../common/knowledge/knowledge-indexing-contract.ts'
import { whileBeating } from './heartbeat.ts'

/** Often enough that a cancelled indexing stops its reader within seconds. */
const HEARTBEAT_MS = 2_000

export interface KnowledgeActivityDeps {
  db: Db
  /** The embedding model and vector stores (built once by the worker from its configuration). */
  ai: AiRuntime
}

/** Creates the knowledge activities: the interface the indexing workflow proxies (its contract). */
export function createKnowledgeActivities({ db, ai }: KnowledgeActivityDeps): KnowledgeActivities {
  return {
    /**
     * Indexes one document version. A file that cannot be parsed is an outcome (FAILED with its reason), not an
     * error; anything else (database, embedding provider) throws and is retried by the workflow's policy.
     */
    async indexKnowledgeDocument(input: KnowledgeIndexingInput): Promise<KnowledgeIndexingOutcome> {
      // Beats so that a cancellation (the document replaced or deleted) reaches the activity and stops its reading; a
      // timeout stops it too (the SDK cancels an activity locally when its start-to-close timeout passes).
      return whileBeating(HEARTBEAT_MS, () =>
        indexDocument(db, ai, input, { signal: Context.current().cancellationSignal })
      )
    },

    /** Marks a version FAILED with a reason (unless it was replaced or deleted meanwhile). Idempotent. */
    async markKnowledgeDocumentFailed(
      input: KnowledgeIndexingInput & { reason: string }
    ): Promise<KnowledgeIndexingOutcome> {
      return markDocumentFailed(db, input, input.reason)
    },
  }
}
