-- A start recorded once (every start but a restart) must never make a second run: when a sweep reads a row whose
-- request already started it, and the workflow has closed since (or another API instance's sweep started it), the
-- start is refused by Temporal (REJECT_DUPLICATE) instead of running the workflow again. Restarts (signal-with-start
-- semantics, `restart: true`) keep Temporal's default, a new run for a closed workflow. Rows recorded before this
-- were all one-shot but for the early-intervention sync's, which are upserted by workflow id; those are marked here.
ALTER TABLE "workflow_outbox" ADD COLUMN "restart" BOOLEAN NOT NULL DEFAULT false;
UPDATE "workflow_outbox" SET "restart" = true WHERE "workflow_type" = 'earlyInterventionWorkflow';
