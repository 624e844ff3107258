-- What parents asked and did not get (issue 77; docs/ai.md, "Unanswered questions"). A declined or low-scoring
-- question to an assistant is kept with its text, so a centre can see what its knowledge is missing. The text is the
-- tenant's own and may name a child: PHI, kept KNOWLEDGE_UNANSWERED_RETENTION_DAYS (90) and then deleted, deletable one
-- by one or all at once through the API, and gone with its assistant. The question's embedding groups near-duplicates
-- without embedding them again; the closest passage of the moment is kept as it was shown. `checked_at` is when it was
-- last asked against the knowledge; `resolved_*` names the document that answers it now.
CREATE TABLE "unanswered_questions" (
    "id" TEXT NOT NULL,
    "tenant_id" TEXT NOT NULL,
    "assistant_id" TEXT NOT NULL,
    "question" TEXT NOT NULL,
    "embedding_model" TEXT NOT NULL,
    "question_vector" BYTEA NOT NULL,
    "answered" BOOLEAN NOT NULL,
    "score" DOUBLE PRECISION NOT NULL,
    "declined_by" TEXT,
    "closest_document_id" TEXT,
    "closest_document_name" TEXT,
    "closest_quote" TEXT,
    "asked_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "checked_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "resolved_document_id" TEXT,
    "resolved_document_name" TEXT,
    "resolved_quote" TEXT,
    "resolved_at" TIMESTAMPTZ(3),

    CONSTRAINT "unanswered_questions_pkey" PRIMARY KEY ("id")
);

CREATE INDEX "unanswered_questions_tenant_id_assistant_id_asked_at_idx" ON "unanswered_questions"("tenant_id", "assistant_id", "asked_at");
CREATE INDEX "unanswered_questions_asked_at_idx" ON "unanswered_questions"("asked_at");

-- Only a row of the tenant's own assistant (migration tenant_composite_foreign_keys), gone with it.
ALTER TABLE "unanswered_questions" ADD CONSTRAINT "unanswered_questions_assistant_id_tenant_fkey"
  FOREIGN KEY ("tenant_id", "assistant_id") REFERENCES "assistants" ("tenant_id", "id") ON DELETE CASCADE ON UPDATE CASCADE;

ALTER TABLE "unanswered_questions" ENABLE ROW LEVEL SECURITY;
CREATE POLICY tenant_isolation ON "unanswered_questions"
  USING (tenant_id = app_current_tenant()) WITH CHECK (tenant_id = app_current_tenant());
GRANT SELECT, INSERT, UPDATE, DELETE ON "unanswered_questions" TO therapy_app;

SELECT app_grant_system_role();
