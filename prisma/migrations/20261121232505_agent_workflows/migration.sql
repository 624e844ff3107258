-- CreateEnum
CREATE TYPE "AgentRunStatus" AS ENUM ('PENDING', 'RUNNING', 'SUCCEEDED', 'PARTIAL', 'FAILED');

-- CreateEnum
CREATE TYPE "AgentRunStepStatus" AS ENUM ('SUCCEEDED', 'REFUSED', 'FAILED', 'SKIPPED');

-- CreateEnum
CREATE TYPE "StaffTaskStatus" AS ENUM ('OPEN', 'DONE');

-- AlterTable
ALTER TABLE "events" ADD COLUMN     "agent_dispatched_at" TIMESTAMPTZ(3);

-- CreateTable
CREATE TABLE "agent_workflows" (
    "id" TEXT NOT NULL,
    "tenant_id" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "description" TEXT,
    "enabled" BOOLEAN NOT NULL DEFAULT true,
    "template_id" TEXT,
    "trigger" JSONB NOT NULL,
    "event_types" TEXT[],
    "assistant_id" TEXT NOT NULL,
    "instructions" TEXT NOT NULL,
    "tools" TEXT[],
    "actions" JSONB NOT NULL,
    "creator_scopes" TEXT[],
    "created_by" TEXT NOT NULL,
    "version" INTEGER NOT NULL DEFAULT 1,
    "schedule_synced_version" INTEGER,
    "deleted_at" TIMESTAMPTZ(3),
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "agent_workflows_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "agent_runs" (
    "id" TEXT NOT NULL,
    "tenant_id" TEXT NOT NULL,
    "agent_workflow_id" TEXT NOT NULL,
    "workflow_id" TEXT NOT NULL,
    "trigger_type" TEXT NOT NULL,
    "event_id" TEXT,
    "event_type" TEXT,
    "status" "AgentRunStatus" NOT NULL DEFAULT 'PENDING',
    "summary" TEXT,
    "error" TEXT,
    "workflow_started_at" TIMESTAMPTZ(3),
    "start_lease_until" TIMESTAMPTZ(3),
    "started_at" TIMESTAMPTZ(3),
    "completed_at" TIMESTAMPTZ(3),
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "agent_runs_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "agent_run_steps" (
    "id" TEXT NOT NULL,
    "tenant_id" TEXT NOT NULL,
    "run_id" TEXT NOT NULL,
    "position" INTEGER NOT NULL,
    "kind" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "status" "AgentRunStepStatus" NOT NULL,
    "output" JSONB NOT NULL DEFAULT '{}',
    "reason" TEXT,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "agent_run_steps_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "staff_tasks" (
    "id" TEXT NOT NULL,
    "tenant_id" TEXT NOT NULL,
    "title" TEXT NOT NULL,
    "description" TEXT,
    "child_id" TEXT,
    "location_id" TEXT,
    "status" "StaffTaskStatus" NOT NULL DEFAULT 'OPEN',
    "due_at" TIMESTAMPTZ(3),
    "agent_run_id" TEXT,
    "dedupe_key" TEXT NOT NULL,
    "completed_at" TIMESTAMPTZ(3),
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "staff_tasks_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "family_messages" (
    "id" TEXT NOT NULL,
    "tenant_id" TEXT NOT NULL,
    "child_id" TEXT,
    "recipient_client_ids" TEXT[],
    "subject" TEXT NOT NULL,
    "body" TEXT NOT NULL,
    "agent_run_id" TEXT,
    "dedupe_key" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "family_messages_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "agent_workflows_tenant_id_created_at_id_idx" ON "agent_workflows"("tenant_id", "created_at", "id");

-- CreateIndex
CREATE INDEX "agent_workflows_schedule_synced_version_idx" ON "agent_workflows"("schedule_synced_version");

-- CreateIndex
CREATE UNIQUE INDEX "agent_runs_workflow_id_key" ON "agent_runs"("workflow_id");

-- CreateIndex
CREATE INDEX "agent_runs_agent_workflow_id_created_at_id_idx" ON "agent_runs"("agent_workflow_id", "created_at", "id");

-- CreateIndex
CREATE INDEX "agent_runs_tenant_id_created_at_id_idx" ON "agent_runs"("tenant_id", "created_at", "id");

-- CreateIndex
CREATE INDEX "agent_runs_workflow_started_at_created_at_idx" ON "agent_runs"("workflow_started_at", "created_at");

-- CreateIndex
CREATE UNIQUE INDEX "agent_runs_agent_workflow_id_event_id_key" ON "agent_runs"("agent_workflow_id", "event_id");

-- CreateIndex
CREATE UNIQUE INDEX "agent_run_steps_run_id_position_key" ON "agent_run_steps"("run_id", "position");

-- CreateIndex
CREATE INDEX "staff_tasks_tenant_id_status_created_at_id_idx" ON "staff_tasks"("tenant_id", "status", "created_at", "id");

-- CreateIndex
CREATE UNIQUE INDEX "staff_tasks_tenant_id_dedupe_key_key" ON "staff_tasks"("tenant_id", "dedupe_key");

-- CreateIndex
CREATE INDEX "family_messages_tenant_id_child_id_created_at_idx" ON "family_messages"("tenant_id", "child_id", "created_at");

-- CreateIndex
CREATE UNIQUE INDEX "family_messages_tenant_id_dedupe_key_key" ON "family_messages"("tenant_id", "dedupe_key");

-- CreateIndex
CREATE INDEX "events_agent_dispatched_at_created_at_idx" ON "events"("agent_dispatched_at", "created_at");

-- AddForeignKey
ALTER TABLE "agent_runs" ADD CONSTRAINT "agent_runs_agent_workflow_id_fkey" FOREIGN KEY ("agent_workflow_id") REFERENCES "agent_workflows"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "agent_run_steps" ADD CONSTRAINT "agent_run_steps_run_id_fkey" FOREIGN KEY ("run_id") REFERENCES "agent_runs"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- Events recorded before agent workflows existed can trigger none: mark them dispatched so the first sweep skips them.
UPDATE "events" SET "agent_dispatched_at" = "created_at" WHERE "agent_dispatched_at" IS NULL;

-- A run is triggered by an event or by its schedule, and an event run names its event.
ALTER TABLE "agent_runs" ADD CONSTRAINT "agent_runs_trigger_check" CHECK (("trigger_type" = 'EVENT' AND "event_id" IS NOT NULL) OR ("trigger_type" = 'SCHEDULE' AND "event_id" IS NULL));

-- Row-level security: every new table holds one tenant's data.
ALTER TABLE "agent_workflows" ENABLE ROW LEVEL SECURITY;
CREATE POLICY tenant_isolation ON "agent_workflows" USING (tenant_id = app_current_tenant()) WITH CHECK (tenant_id = app_current_tenant());
ALTER TABLE "agent_runs" ENABLE ROW LEVEL SECURITY;
CREATE POLICY tenant_isolation ON "agent_runs" USING (tenant_id = app_current_tenant()) WITH CHECK (tenant_id = app_current_tenant());
ALTER TABLE "agent_run_steps" ENABLE ROW LEVEL SECURITY;
CREATE POLICY tenant_isolation ON "agent_run_steps" USING (tenant_id = app_current_tenant()) WITH CHECK (tenant_id = app_current_tenant());
ALTER TABLE "staff_tasks" ENABLE ROW LEVEL SECURITY;
CREATE POLICY tenant_isolation ON "staff_tasks" USING (tenant_id = app_current_tenant()) WITH CHECK (tenant_id = app_current_tenant());
ALTER TABLE "family_messages" ENABLE ROW LEVEL SECURITY;
CREATE POLICY tenant_isolation ON "family_messages" USING (tenant_id = app_current_tenant()) WITH CHECK (tenant_id = app_current_tenant());
