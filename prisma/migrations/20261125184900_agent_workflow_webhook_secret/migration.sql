-- Agent `call_webhook` actions are signed like webhook deliveries (docs/agents.md, "Signed webhook calls"): each
-- agent workflow holds its own signing secret, `whsec_` + base64 of 32 random bytes, shown when it is created or
-- rotated. Workflows created before this get one here, from two random UUIDs (244 random bits); their owners learn it
-- by rotating it (POST /v1/agent-workflows/{id}/rotate-secret).
ALTER TABLE "agent_workflows" ADD COLUMN "webhook_secret" TEXT;
UPDATE "agent_workflows"
   SET "webhook_secret" = 'whsec_' || encode(
     decode(replace(gen_random_uuid()::text, '-', '') || replace(gen_random_uuid()::text, '-', ''), 'hex'), 'base64');
ALTER TABLE "agent_workflows" ALTER COLUMN "webhook_secret" SET NOT NULL;
