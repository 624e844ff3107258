/**
 * @module The knowledge indexing workflow: one run per document version (`knowledge-index-<documentId>-v<n>`),
 * started through the workflow outbox when a document is uploaded or replaced. It asks the indexing activity — on a
 * task queue of its own, so parsing and embedding never take the slots of payments, reminders and deliveries — to
 * parse, chunk, embed and store the version; the document's status (PROCESSING → READY, or FAILED with a reason) is
 * what the API shows. When the file readers are busy the activity says so at once and the run waits on a durable timer
 * before asking again, holding nothing. Transient failures are retried with backoff; when retries run out the version
 * is marked FAILED so it never stays PROCESSING for ever. Ids only in and out: never a file's content.
 */
import { isCancellation, proxyActivities, sleep, workflowInfo } from '@temporalio/workflow'
import {
  knowledgeTaskQueue,
  type KnowledgeActivities,
  type KnowledgeIndexingInput,
  type KnowledgeIndexingOutcome,
} from '../common/knowledge/knowledge-indexing-contract.ts'

const { markKnowledgeDocumentFailed } = proxyActivities<KnowledgeActivities>({
  startToCloseTimeout: '1 minute',
  retry: { initialInterval: '2 seconds', maximumInterval: '1 minute', maximumAttempts: 20 },
})

/** The reason shown when indexing fails for something other than the file itself (the details are in the history). */
export const INDEXING_GAVE_UP =
  'Indexing failed repeatedly (the database or the embedding provider was unavailable); replace the document to try again.'

/**
 * How long a version waits for a free reader in all, before it is failed, and at most between two asks: short enough
 * that a tenant's own backlog drains without idle readers, long enough that hundreds of waiting files cost a few
 * activity tasks a second (about 7 history events a wait: 2 hours is some 3,500 events, far below the limit).
 */
const MAX_DEFERRED_MS = 2 * 60 * 60 * 1000
const MAX_DEFERRAL_WAIT_MS = 15_000

export const READERS_BUSY_GAVE_UP =
  'The file readers were busy with other files for 2 hours; replace the document to try again.'

/** Indexes one document version and returns what became of it. */
export async function knowledgeIndexingWorkflow(input: KnowledgeIndexingInput): Promise<KnowledgeIndexingOutcome> {
  const { indexKnowledgeDocument } = proxyActivities<KnowledgeActivities>({
    taskQueue: knowledgeTaskQueue(workflowInfo().taskQueue),
    // Thousands of chunks through a remote embedding provider take minutes; the local model takes seconds.
    startToCloseTimeout: '15 minutes',
    retry: { initialInterval: '2 seconds', backoffCoefficient: 2, maximumInterval: '1 minute', maximumAttempts: 6 },
  })
  try {
    for (let deferrals = 0, deferredMs = 0; ; deferrals++) {
      const outcome = await indexKnowledgeDocument(input)
      if (outcome.status !== 'DEFERRED') return outcome
      if (deferredMs >= MAX_DEFERRED_MS)
        return await markKnowledgeDocumentFailed({ ...input, reason: READERS_BUSY_GAVE_UP })
      const wait = Math.min(outcome.retryAfterMs * 2 ** Math.min(deferrals, 4), MAX_DEFERRAL_WAIT_MS)
      deferredMs += wait
      await sleep(wait)
    }
  } catch (error) {
    // A cancelled run ends cancelled. The fallback below could not run anyway (an activity scheduled in a cancelled
    // scope is refused at once, with no command), so rethrowing emits the same commands as before: no patch needed.
    if (isCancellation(error)) throw error
    return await markKnowledgeDocumentFailed({ ...input, reason: INDEXING_GAVE_UP })
  }
}
