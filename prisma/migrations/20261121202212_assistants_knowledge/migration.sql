-- CreateEnum
CREATE TYPE "KnowledgeDocumentStatus" AS ENUM ('PROCESSING', 'READY', 'FAILED');

-- CreateTable
CREATE TABLE "assistants" (
    "id" TEXT NOT NULL,
    "tenant_id" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "scope" TEXT NOT NULL,
    "location_id" TEXT,
    "tools" TEXT[] DEFAULT ARRAY[]::TEXT[],
    "instructions" TEXT,
    "description" TEXT,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "assistants_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "knowledge_documents" (
    "id" TEXT NOT NULL,
    "tenant_id" TEXT NOT NULL,
    "assistant_id" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "media_type" TEXT NOT NULL,
    "size_bytes" INTEGER NOT NULL,
    "sha256" TEXT NOT NULL,
    "content" BYTEA NOT NULL,
    "version" INTEGER NOT NULL DEFAULT 1,
    "status" "KnowledgeDocumentStatus" NOT NULL DEFAULT 'PROCESSING',
    "failure_reason" TEXT,
    "page_count" INTEGER,
    "chunk_count" INTEGER NOT NULL DEFAULT 0,
    "embedding_model" TEXT,
    "vector_store" TEXT,
    "indexed_at" TIMESTAMPTZ(3),
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "knowledge_documents_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "knowledge_chunks" (
    "id" TEXT NOT NULL,
    "tenant_id" TEXT NOT NULL,
    "assistant_id" TEXT NOT NULL,
    "document_id" TEXT NOT NULL,
    "content" TEXT NOT NULL,
    "metadata" JSONB NOT NULL,
    "embedding_model" TEXT NOT NULL,
    "embedding" BYTEA NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "knowledge_chunks_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "knowledge_queries" (
    "id" TEXT NOT NULL,
    "tenant_id" TEXT NOT NULL,
    "assistant_id" TEXT NOT NULL,
    "answered" BOOLEAN NOT NULL,
    "top_score" DOUBLE PRECISION NOT NULL,
    "citation_count" INTEGER NOT NULL,
    "latency_ms" INTEGER NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "knowledge_queries_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "assistants_tenant_id_created_at_id_idx" ON "assistants"("tenant_id", "created_at", "id");

-- CreateIndex
CREATE INDEX "assistants_tenant_id_name_id_idx" ON "assistants"("tenant_id", "name", "id");

-- CreateIndex
CREATE INDEX "knowledge_documents_tenant_id_assistant_id_created_at_id_idx" ON "knowledge_documents"("tenant_id", "assistant_id", "created_at", "id");

-- CreateIndex
CREATE INDEX "knowledge_documents_tenant_id_assistant_id_name_id_idx" ON "knowledge_documents"("tenant_id", "assistant_id", "name", "id");

-- CreateIndex
CREATE INDEX "knowledge_documents_tenant_id_created_at_id_idx" ON "knowledge_documents"("tenant_id", "created_at", "id");

-- CreateIndex
CREATE INDEX "knowledge_chunks_tenant_id_assistant_id_embedding_model_id_idx" ON "knowledge_chunks"("tenant_id", "assistant_id", "embedding_model", "id");

-- CreateIndex
CREATE INDEX "knowledge_chunks_document_id_idx" ON "knowledge_chunks"("document_id");

-- CreateIndex
CREATE INDEX "knowledge_queries_tenant_id_assistant_id_created_at_idx" ON "knowledge_queries"("tenant_id", "assistant_id", "created_at");

-- AddForeignKey
ALTER TABLE "knowledge_documents" ADD CONSTRAINT "knowledge_documents_assistant_id_fkey" FOREIGN KEY ("assistant_id") REFERENCES "assistants"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "knowledge_chunks" ADD CONSTRAINT "knowledge_chunks_assistant_id_fkey" FOREIGN KEY ("assistant_id") REFERENCES "assistants"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "knowledge_chunks" ADD CONSTRAINT "knowledge_chunks_document_id_fkey" FOREIGN KEY ("document_id") REFERENCES "knowledge_documents"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "knowledge_queries" ADD CONSTRAINT "knowledge_queries_assistant_id_fkey" FOREIGN KEY ("assistant_id") REFERENCES "assistants"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- Tenant isolation (row-level security) for every new table.
ALTER TABLE "assistants" ENABLE ROW LEVEL SECURITY;
CREATE POLICY tenant_isolation ON "assistants" USING (tenant_id = app_current_tenant()) WITH CHECK (tenant_id = app_current_tenant());
ALTER TABLE "knowledge_documents" ENABLE ROW LEVEL SECURITY;
CREATE POLICY tenant_isolation ON "knowledge_documents" USING (tenant_id = app_current_tenant()) WITH CHECK (tenant_id = app_current_tenant());
ALTER TABLE "knowledge_chunks" ENABLE ROW LEVEL SECURITY;
CREATE POLICY tenant_isolation ON "knowledge_chunks" USING (tenant_id = app_current_tenant()) WITH CHECK (tenant_id = app_current_tenant());
ALTER TABLE "knowledge_queries" ENABLE ROW LEVEL SECURITY;
CREATE POLICY tenant_isolation ON "knowledge_queries" USING (tenant_id = app_current_tenant()) WITH CHECK (tenant_id = app_current_tenant());

-- The pgvector store (docs/ai.md). Migrations must succeed on a server without pgvector (CI's PostgreSQL 15), so the
-- extension and the store's table are created by this function only where the extension is available; elsewhere it
-- does nothing and the platform uses the plain PostgreSQL store (knowledge_chunks). An operator who installs pgvector
-- later runs `SELECT knowledge_enable_pgvector();` once. The table lives in its own schema, ai_vectors, so Prisma's
-- migration diff (which sees only the application schema) never proposes to drop a table it does not model, whether
-- or not a given server has it.
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
  RETURN true;
END
$fn$;

SELECT knowledge_enable_pgvector();
