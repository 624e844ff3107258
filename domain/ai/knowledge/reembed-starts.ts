/**
 * @module Starting the knowledge re-embedding workflows (docs/ai.md, "Changing the embedding model"). The API's loop
 * finds assistants whose indexed knowledge lags the configured embedding model (at start, then every sweep
 * interval) and, for each, in a unit of work of its tenant, records the target on the assistant and the workflow's
 * start in the outbox, in one transaction. The conditional update makes the start happen once, whatever number of API
 * instances run the loop; the workflow id is the assistant and the model, so the start is idempotent in Temporal too.
 */
import { startBackgroundLoop } from '../../../infra/background-loop.ts'
import type { Db } from '../../../infra/db.ts'
import type { Logger } from '../../../infra/logger.ts'
import { runInUnitOfWork } from '../../../infra/unit-of-work.ts'
import {
  KNOWLEDGE_REEMBED_KIND,
  KNOWLEDGE_REEMBED_WORKFLOW,
  knowledgeReembedWorkflowId,
  type KnowledgeReembedInput,
} from '../../../common/knowledge/knowledge-reembed-contract.ts'
import type { WorkflowOutbox } from '../../workflow-runs/workflow-outbox.ts'

export interface ReembedStartsDeps {
  db: Db
  outbox: WorkflowOutbox
  /** The configured (effective) embedding model: the lexical one when the sentence model's files are absent. */
  model: string
  logger: Logger
}

const BATCH = 100

/**
 * Records a re-embedding start for each assistant whose indexed knowledge is not on `model`, and none is recorded.
 * @returns how many starts were recorded
 */
export async function recordDueReembeds({ db, outbox, model, logger }: ReembedStartsDeps): Promise<number> {
  // The platform's own connection (the login role, as the reconciliation schedules' sync): ids only, across tenants.
  const due = await db.$queryRaw<Array<{ tenantId: string; assistantId: string }>>`
    SELECT a.tenant_id AS "tenantId", a.id AS "assistantId" FROM assistants a
    WHERE a.knowledge_embedding_model IS DISTINCT FROM ${model} AND a.knowledge_reembed_model IS DISTINCT FROM ${model}
      AND EXISTS (SELECT 1 FROM knowledge_documents d
                  WHERE d.tenant_id = a.tenant_id AND d.assistant_id = a.id AND d.status = 'READY')
    ORDER BY a.created_at, a.id LIMIT ${BATCH}`
  let recorded = 0
  for (const { tenantId, assistantId } of due) {
    try {
      const started = await runInUnitOfWork(db, tenantId, async (uow) => {
        const claimed = await uow.tx.$executeRaw`
          UPDATE assistants SET knowledge_reembed_model = ${model}
          WHERE id = ${assistantId} AND tenant_id = ${tenantId}
            AND knowledge_embedding_model IS DISTINCT FROM ${model}
            AND knowledge_reembed_model IS DISTINCT FROM ${model}`
        // Another API instance recorded it first.
        if (claimed === 0) return false
        const input: KnowledgeReembedInput = { tenantId, assistantId, toModel: model }
        await outbox.enqueue(uow, {
          workflowType: KNOWLEDGE_REEMBED_WORKFLOW,
          workflowId: knowledgeReembedWorkflowId(tenantId, assistantId, model),
          args: [input],
          searchAttributes: { TenantId: tenantId, WorkflowKind: KNOWLEDGE_REEMBED_KIND },
          summary: `Re-embedding the knowledge of assistant ${assistantId} with ${model}`,
          details:
            'Queries use the previous model until every document is embedded; progress: the knowledgeReembedProgress query.',
          // The model may change back and forth: a closed run of this id gets a new one.
          restart: true,
        })
        return true
      })
      if (started) {
        recorded++
        logger.info({ tenantId, assistantId, model }, 'knowledge: re-embedding started for a change of model')
      }
    } catch (error) {
      logger.warn({ tenantId, assistantId, err: error }, 'knowledge re-embedding not started; the next sweep retries')
    }
  }
  return recorded
}

/**
 * Keeps every assistant's knowledge on the configured model: records the due starts at once and every `intervalMs`.
 * @returns a function that stops the loop
 */
export function keepKnowledgeOnModel(deps: ReembedStartsDeps & { intervalMs: number }): () => Promise<void> {
  return startBackgroundLoop({
    run: async () => {
      await recordDueReembeds(deps)
    },
    intervalMs: deps.intervalMs,
    onError: (error) => deps.logger.warn({ err: error }, 'knowledge re-embeddings not checked; the next sweep retries'),
  })
}
