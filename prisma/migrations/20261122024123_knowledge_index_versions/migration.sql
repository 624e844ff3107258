-- CreateTable
CREATE TABLE "knowledge_index_versions" (
    "tenant_id" TEXT NOT NULL,
    "assistant_id" TEXT NOT NULL,
    "embedding_model" TEXT NOT NULL,
    "xact" BIGINT NOT NULL,
    "changes" BIGINT NOT NULL,

    CONSTRAINT "knowledge_index_versions_pkey" PRIMARY KEY ("tenant_id","assistant_id","embedding_model")
);

ALTER TABLE "knowledge_index_versions" ENABLE ROW LEVEL SECURITY;
CREATE POLICY tenant_isolation ON "knowledge_index_versions" USING (tenant_id = app_current_tenant()) WITH CHECK (tenant_id = app_current_tenant());

-- Every statement that adds, changes or removes an assistant's vectors stamps that assistant's version with its
-- transaction id (never reused, even after a rollback) and a change count (several changes in one transaction), so
-- a per-process index cache is revalidated by one primary-key lookup (docs/ai.md). Statement-level triggers with
-- transition tables: one stamp per statement, not per row. A table with transition tables needs one trigger per event.
CREATE FUNCTION knowledge_chunks_stamp_version() RETURNS trigger
  LANGUAGE plpgsql
  AS $fn$
BEGIN
  INSERT INTO knowledge_index_versions AS v (tenant_id, assistant_id, embedding_model, xact, changes)
    SELECT DISTINCT tenant_id, assistant_id, embedding_model, pg_current_xact_id()::text::bigint, 1 FROM changed_rows
  ON CONFLICT (tenant_id, assistant_id, embedding_model)
    DO UPDATE SET xact = EXCLUDED.xact, changes = v.changes + 1;
  RETURN NULL;
END
$fn$;
CREATE TRIGGER knowledge_chunks_inserted AFTER INSERT ON knowledge_chunks
  REFERENCING NEW TABLE AS changed_rows FOR EACH STATEMENT EXECUTE FUNCTION knowledge_chunks_stamp_version();
CREATE TRIGGER knowledge_chunks_updated AFTER UPDATE ON knowledge_chunks
  REFERENCING NEW TABLE AS changed_rows FOR EACH STATEMENT EXECUTE FUNCTION knowledge_chunks_stamp_version();
CREATE TRIGGER knowledge_chunks_deleted AFTER DELETE ON knowledge_chunks
  REFERENCING OLD TABLE AS changed_rows FOR EACH STATEMENT EXECUTE FUNCTION knowledge_chunks_stamp_version();

-- The same for the pgvector store's table, whose assistant and model live in the metadata.
CREATE FUNCTION knowledge_vectors_stamp_version() RETURNS trigger
  LANGUAGE plpgsql
  AS $fn$
BEGIN
  INSERT INTO knowledge_index_versions AS v (tenant_id, assistant_id, embedding_model, xact, changes)
    SELECT DISTINCT tenant_id, metadata->>'assistantId', metadata->>'embeddingModel', pg_current_xact_id()::text::bigint, 1
    FROM changed_rows
  ON CONFLICT (tenant_id, assistant_id, embedding_model)
    DO UPDATE SET xact = EXCLUDED.xact, changes = v.changes + 1;
  RETURN NULL;
END
$fn$;

-- Attaches the stamping triggers to ai_vectors.knowledge_vectors when it exists (where pgvector is), and stamps the
-- vectors already stored. Called below and by knowledge_enable_pgvector() (redefined here to call it).
CREATE FUNCTION knowledge_vectors_track_versions() RETURNS void
  LANGUAGE plpgsql
  AS $fn$
BEGIN
  IF to_regclass('ai_vectors.knowledge_vectors') IS NULL THEN
    RETURN;
  END IF;
  DROP TRIGGER IF EXISTS knowledge_vectors_inserted ON ai_vectors.knowledge_vectors;
  DROP TRIGGER IF EXISTS knowledge_vectors_updated ON ai_vectors.knowledge_vectors;
  DROP TRIGGER IF EXISTS knowledge_vectors_deleted ON ai_vectors.knowledge_vectors;
  CREATE TRIGGER knowledge_vectors_inserted AFTER INSERT ON ai_vectors.knowledge_vectors
    REFERENCING NEW TABLE AS changed_rows FOR EACH STATEMENT EXECUTE FUNCTION knowledge_vectors_stamp_version();
  CREATE TRIGGER knowledge_vectors_updated AFTER UPDATE ON ai_vectors.knowledge_vectors
    REFERENCING NEW TABLE AS changed_rows FOR EACH STATEMENT EXECUTE FUNCTION knowledge_vectors_stamp_version();
  CREATE TRIGGER knowledge_vectors_deleted AFTER DELETE ON ai_vectors.knowledge_vectors
    REFERENCING OLD TABLE AS changed_rows FOR EACH STATEMENT EXECUTE FUNCTION knowledge_vectors_stamp_version();
  INSERT INTO knowledge_index_versions (tenant_id, assistant_id, embedding_model, xact, changes)
    SELECT DISTINCT tenant_id, metadata->>'assistantId', metadata->>'embeddingModel', pg_current_xact_id()::text::bigint, 1
    FROM ai_vectors.knowledge_vectors
  ON CONFLICT DO NOTHING;
END
$fn$;

INSERT INTO knowledge_index_versions (tenant_id, assistant_id, embedding_model, xact, changes)
  SELECT DISTINCT tenant_id, assistant_id, embedding_model, pg_current_xact_id()::text::bigint, 1 FROM knowledge_chunks;

-- knowledge_enable_pgvector() as before (20261121202212_assistants_knowledge), plus the version triggers.
CREATE OR REPLACE FUNCTION knowledge_enable_pgvector() RETURNS boolean
  LANGUAGE plpgsql
  AS $fn$
DECLARE
  extension_schema text;
BEGIN
  IF NOT EXISTS (SELECT 1 FROM pg_available_extensions WHERE name = 'vector') THEN
    RAISE NOTICE 'pgvector is not available: knowledge uses the plain PostgreSQL vector store';
    RETURN false;
  END IF;
  BEGIN
    CREATE EXTENSION IF NOT EXISTS vector;
  EXCEPTION WHEN insufficient_privilege THEN
    RAISE NOTICE 'not allowed to create the vector extension: knowledge uses the plain PostgreSQL vector store';
    RETURN false;
  END;
  SELECT n.nspname INTO extension_schema
    FROM pg_extension e JOIN pg_namespace n ON n.oid = e.extnamespace
    WHERE e.extname = 'vector';

  CREATE SCHEMA IF NOT EXISTS ai_vectors;
  -- The columns PGVectorStore reads and writes (id, text, metadata, embedding), plus the tenant, filled from the
  -- transaction's tenant so LangChain's inserts need not know about it, and the document, derived from the metadata
  -- so that deleting a document (or its assistant) deletes its vectors whatever deleted it.
  EXECUTE format(
    'CREATE TABLE IF NOT EXISTS ai_vectors.knowledge_vectors (
       id text PRIMARY KEY,
       tenant_id text NOT NULL DEFAULT app_current_tenant(),
       text text NOT NULL,
       metadata jsonb NOT NULL,
       embedding %I.vector NOT NULL,
       document_id text GENERATED ALWAYS AS (metadata->>''documentId'') STORED
         REFERENCES %I.knowledge_documents(id) ON DELETE CASCADE
     )',
    extension_schema, current_schema()
  );
  CREATE INDEX IF NOT EXISTS knowledge_vectors_scope_idx
    ON ai_vectors.knowledge_vectors (tenant_id, (metadata->>'assistantId'), (metadata->>'embeddingModel'));
  CREATE INDEX IF NOT EXISTS knowledge_vectors_document_idx ON ai_vectors.knowledge_vectors (document_id);
  ALTER TABLE ai_vectors.knowledge_vectors ENABLE ROW LEVEL SECURITY;
  DROP POLICY IF EXISTS tenant_isolation ON ai_vectors.knowledge_vectors;
  CREATE POLICY tenant_isolation ON ai_vectors.knowledge_vectors
    USING (tenant_id = app_current_tenant()) WITH CHECK (tenant_id = app_current_tenant());
  GRANT USAGE ON SCHEMA ai_vectors TO therapy_app;
  GRANT SELECT, INSERT, UPDATE, DELETE ON ai_vectors.knowledge_vectors TO therapy_app;
  PERFORM knowledge_vectors_track_versions();
  RETURN true;
END
$fn$;

SELECT knowledge_vectors_track_versions();
