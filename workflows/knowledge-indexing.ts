/**
 * @module The knowledge indexing workflow: one run per document version (`knowledge-index-<documentId>-v<n>`),
 * started through the workflow outbox when a document is uploaded or replaced. It asks the indexing activity to
 * parse, chunk, embed and store the version; the document's status (PROCESSING → READY, or FAILED with a reason)
 * is what the API shows. Transient failures are retried with backoff; when retries run out the version is marked
 * FAILED so it never stays PROCESSING for ever. Ids only in and out: never a file's content.
 */
import { isCancellation, proxyActivities } from '@temporalio/workflow'
import type {
  KnowledgeActivities,
  KnowledgeIndexingInput,
  KnowledgeIndexingOutcome,
} from '../common/knowledge/knowledge-indexing-contract.ts'

const { indexKnowledgeDocument } = proxyActivities<KnowledgeActivities>({
  // Thousands of chunks through a remote embedding provider take minutes; the local model takes seconds.
  startToCloseTimeout: '15 minutes',
  retry: { initialInterval: '2 seconds', backoffCoefficient: 2, maximumInterval: '1 minute', maximumAttempts: 6 },
})

const { markKnowledgeDocumentFailed } = proxyActivities<KnowledgeActivities>({
  startToCloseTimeout: '1 minute',
  retry: { initialInterval: '2 seconds', maximumInterval: '1 minute', maximumAttempts: 20 },
})

/** The reason shown when indexing fails for something other than the file itself (the details are in the history). */
export const INDEXING_GAVE_UP =
  'Indexing failed repeatedly (the database or the embedding provider was unavailable); replace the document to try again.'

/** Indexes one document version and returns what became of it. */
export async function knowledgeIndexingWorkflow(input: KnowledgeIndexingInput): Promise<KnowledgeIndexingOutcome> {
  try {
    return await indexKnowledgeDocument(input)
  } catch (error) {
    // A cancelled run ends cancelled. The fallback below could not run anyway (an activity scheduled in a cancelled
    // scope is refused at once, with no command), so rethrowing emits the same commands as before: no patch needed.
    if (isCancellation(error)) throw error
    return await markKnowledgeDocumentFailed({ ...input, reason: INDEXING_GAVE_UP })
  }
}
