-- A recorded workflow start may defer the workflow's first task (Temporal's start delay): a booking's workflow has
-- nothing to do until shortly before its first reminder (issue 22).
ALTER TABLE "workflow_outbox" ADD COLUMN "start_at" TIMESTAMPTZ(3);
