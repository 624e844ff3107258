/**
 * @module The version of an assistant's stored vectors, as the triggers of migration 20261122024123 stamp it on
 * every insert, update or delete of its chunks (either store's table): the changing transaction's id, never reused
 * even after a rollback, and a count of changes within it. Read inside the tenant's transaction (row-level
 * security), it tells a per-process cache whether the chunks it holds are still the ones this transaction sees, with
 * one primary-key lookup instead of an aggregate over every chunk.
 */
import type { Tx } from '../../../infra/db.ts'

/** The assistant's current index version ("0:0" before it ever had vectors of this model). */
export async function readIndexVersion(
  tx: Tx,
  tenantId: string,
  assistantId: string,
  embeddingModel: string
): Promise<string> {
  const [row] = await tx.$queryRaw<Array<{ v: string }>>`
    SELECT xact::text || ':' || changes::text AS v FROM knowledge_index_versions
    WHERE tenant_id = ${tenantId} AND assistant_id = ${assistantId} AND embedding_model = ${embeddingModel}`
  return row?.v ?? '0:0'
}
