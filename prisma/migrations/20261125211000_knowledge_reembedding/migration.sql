-- AlterTable
ALTER TABLE "assistants" ADD COLUMN "knowledge_embedding_model" TEXT,
ADD COLUMN "knowledge_reembed_model" TEXT;

-- AlterTable
ALTER TABLE "knowledge_documents" ADD COLUMN "reembedded_model" TEXT;

-- ---- Hand-written (docs/ai.md, "Changing the embedding model") ----
-- An assistant's queries use the model its vectors were made with, until a re-embedding workflow flips it. Assistants
-- indexed before this migration: the model most of their indexed documents have (one model unless the configuration
-- changed and some documents were replaced since; the others are then re-embedded like everything else).
UPDATE "assistants" a SET "knowledge_embedding_model" = (
  SELECT d.embedding_model FROM knowledge_documents d
  WHERE d.assistant_id = a.id AND d.tenant_id = a.tenant_id AND d.status = 'READY' AND d.embedding_model IS NOT NULL
  GROUP BY d.embedding_model ORDER BY count(*) DESC, d.embedding_model LIMIT 1
);
