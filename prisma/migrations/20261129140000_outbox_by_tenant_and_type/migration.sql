-- A tenant's last outbox row of a workflow type, newest first: how a reconciliation request finds the tenant's run in
-- progress (domain/reconciliation/reconciliation-runs.ts) without reading every booking start the tenant ever made.
CREATE INDEX "workflow_outbox_tenant_id_workflow_type_created_at_idx"
  ON "workflow_outbox" ("tenant_id", "workflow_type", "created_at");
