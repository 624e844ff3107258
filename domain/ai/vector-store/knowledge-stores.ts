/**
 * @module The knowledge stores as the domain uses them: a store bound to a unit of work and an assistant, whichever
 * kind the process found (adapters/pgvector/knowledge-store-selector.ts makes the choice and the stores).
 */
import type { UnitOfWork } from '../../../infra/unit-of-work.ts'
import type { KnowledgeEmbeddings, KnowledgeVectorStore, VectorStoreKind } from './knowledge-vector-store.ts'

export type VectorStoreSetting = 'auto' | VectorStoreKind

export interface KnowledgeStores {
  /** The store in use (resolved on first call). */
  kind(uow: UnitOfWork): Promise<VectorStoreKind>
  /**
   * A store bound to the unit's transaction and tenant, one assistant, and one embedding model: the configured one
   * unless `model` names another (an assistant still searched with its previous model, a re-embedding's new one).
   */
  open(uow: UnitOfWork, assistantId: string, model?: KnowledgeEmbeddings): Promise<KnowledgeVectorStore>
  /**
   * Deletes an assistant's vectors of one model (of one document when `documentId` is given), or of every model but
   * `except`: a store's own `delete` removes every model's, as a replaced or deleted document needs.
   * @returns how many were deleted
   */
  removeModelVectors(
    uow: UnitOfWork,
    assistantId: string,
    which: { model: string; documentId?: string } | { except: string }
  ): Promise<number>
}
