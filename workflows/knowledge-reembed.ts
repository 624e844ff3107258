/**
 * @module The knowledge re-embedding workflow (docs/ai.md, "Changing the embedding model"): one run per assistant
 * and target model (`knowledge-reembed:<tenantId>:<assistantId>:<model>`), started through the outbox when an
 * assistant's knowledge lags the configured model. It lists the documents without vectors of the target model,
 * embeds them again one activity each (beside the old vectors, which keep answering), then flips the assistant to
 * the target in one transaction that also removes the old vectors. Every activity is idempotent: a document already
 * embedded is skipped, so a run resumed after a crash, or continued as new, never duplicates a chunk. Orchestration
 * only; progress is the `knowledgeReembedProgress` query and the run's current details.
 */
import {
  continueAsNew,
  patched,
  proxyActivities,
  setCurrentDetails,
  setHandler,
  workflowInfo,
} from '@temporalio/workflow'
import { knowledgeTaskQueue } from '../common/knowledge/knowledge-indexing-contract.ts'
import {
  describeReembedProgress,
  knowledgeReembedProgressQuery,
  type KnowledgeReembedActivities,
  type KnowledgeReembedInput,
  type KnowledgeReembedProgress,
  type KnowledgeReembedResult,
} from '../common/knowledge/knowledge-reembed-contract.ts'

const { listKnowledgeToReembed, completeKnowledgeReembed } = proxyActivities<KnowledgeReembedActivities>({
  startToCloseTimeout: '2 minutes',
  retry: { initialInterval: '2 seconds', backoffCoefficient: 2, maximumInterval: '1 minute' },
})

/**
 * One document: thousands of chunks take minutes with a remote provider. The activity heartbeats, so a dead worker
 * is noticed in 15 s (three missed beats). No attempt limit: a worker that cannot run the target model (its files
 * absent) keeps failing visibly, with the reason, until one that can takes over; the old vectors answer meanwhile.
 */
const reembedOn = (taskQueue: string | undefined) =>
  proxyActivities<KnowledgeReembedActivities>({
    ...(taskQueue !== undefined && { taskQueue }),
    startToCloseTimeout: '15 minutes',
    heartbeatTimeout: '15 seconds',
    retry: { initialInterval: '2 seconds', backoffCoefficient: 2, maximumInterval: '5 minutes' },
  }).reembedKnowledgeDocument

/**
 * Embedding runs on the knowledge task queue, as indexing does (issue 76): a tenant's model change never takes the
 * slots that payments, reminders and deliveries need. Runs begun before that embed on the workflow's own queue.
 */
export const REEMBED_ON_KNOWLEDGE_QUEUE = 'reembed-on-knowledge-queue'

/** Lists again after a flip found documents indexed meanwhile with another model; beyond this, a new run. */
const MAX_ROUNDS = 3

/** Re-embeds an assistant's knowledge with `toModel` and flips its queries to it. */
export async function knowledgeReembedWorkflow(input: KnowledgeReembedInput): Promise<KnowledgeReembedResult> {
  const progress: KnowledgeReembedProgress = { toModel: input.toModel, done: 0, total: 0, state: 'EMBEDDING' }
  setHandler(knowledgeReembedProgressQuery, () => progress)
  const report = () => setCurrentDetails(describeReembedProgress(progress))

  const listing = await listKnowledgeToReembed(input)
  if (listing.status !== 'LISTED') {
    progress.state = 'ENDED'
    report()
    return { status: listing.status }
  }
  progress.done = listing.alreadyDone
  progress.total = listing.alreadyDone + listing.documentIds.length
  report()

  let pending = listing.documentIds
  let reembedKnowledgeDocument: ReturnType<typeof reembedOn> | undefined
  for (let round = 0; round < MAX_ROUNDS; round++) {
    for (const documentId of pending) {
      // A long history (tens of thousands of documents) goes on in a new run, which lists what is left.
      if (workflowInfo().continueAsNewSuggested) await continueAsNew<typeof knowledgeReembedWorkflow>(input)
      reembedKnowledgeDocument ??= reembedOn(
        patched(REEMBED_ON_KNOWLEDGE_QUEUE) ? knowledgeTaskQueue(workflowInfo().taskQueue) : undefined
      )
      await reembedKnowledgeDocument({ ...input, documentId })
      progress.done++
      report()
    }
    const completion = await completeKnowledgeReembed(input)
    if (completion.status === 'FLIPPED') {
      progress.state = 'FLIPPED'
      progress.total = completion.documents
      progress.done = completion.documents
      report()
      return { status: 'FLIPPED', documents: completion.documents }
    }
    if (completion.status !== 'PENDING') {
      progress.state = 'ENDED'
      report()
      return { status: completion.status }
    }
    pending = completion.documentIds
    progress.total += pending.length
    report()
  }
  return await continueAsNew<typeof knowledgeReembedWorkflow>(input)
}
