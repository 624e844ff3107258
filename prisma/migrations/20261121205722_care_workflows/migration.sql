-- CreateEnum
CREATE TYPE "CareNotificationStatus" AS ENUM ('OPEN', 'RESOLVED', 'CANCELLED');

-- CreateEnum
CREATE TYPE "EarlyInterventionPlanStatus" AS ENUM ('ACTIVE', 'CLOSED');

-- CreateEnum
CREATE TYPE "EiTimelineException" AS ENUM ('FAMILY_CIRCUMSTANCES', 'CONSENT_PENDING');

-- CreateEnum
CREATE TYPE "ProviderOnboardingStep" AS ENUM ('PROFILE', 'DOCUMENTS', 'LICENCE_VERIFICATION', 'BACKGROUND_CHECK', 'ADMIN_APPROVAL');

-- CreateEnum
CREATE TYPE "ProviderOnboardingRunStatus" AS ENUM ('IN_PROGRESS', 'APPROVED', 'REJECTED', 'TIMED_OUT', 'CANCELLED');

-- AlterTable
ALTER TABLE "workflow_outbox" ADD COLUMN     "static_details" TEXT,
ADD COLUMN     "static_summary" TEXT;

-- CreateTable
CREATE TABLE "care_notifications" (
    "id" TEXT NOT NULL,
    "tenant_id" TEXT NOT NULL,
    "workflow_kind" TEXT NOT NULL,
    "kind" TEXT NOT NULL,
    "child_id" TEXT,
    "provider_id" TEXT,
    "due_date" DATE,
    "details" JSONB NOT NULL DEFAULT '{}',
    "status" "CareNotificationStatus" NOT NULL DEFAULT 'OPEN',
    "resolved_at" TIMESTAMPTZ(3),
    "dedupe_key" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "care_notifications_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "early_intervention_plans" (
    "child_id" TEXT NOT NULL,
    "tenant_id" TEXT NOT NULL,
    "status" "EarlyInterventionPlanStatus" NOT NULL DEFAULT 'ACTIVE',
    "closed_reason" TEXT,
    "timeline_exception" "EiTimelineException",
    "timeline_exception_note" TEXT,
    "timeline_exception_recorded_at" TIMESTAMPTZ(3),
    "deadlines" JSONB NOT NULL DEFAULT '[]',
    "next_check_in_date" DATE,
    "computed_for" DATE,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "early_intervention_plans_pkey" PRIMARY KEY ("child_id")
);

-- CreateTable
CREATE TABLE "child_progress_reports" (
    "id" TEXT NOT NULL,
    "tenant_id" TEXT NOT NULL,
    "child_id" TEXT NOT NULL,
    "trigger" TEXT NOT NULL,
    "period_start" TIMESTAMPTZ(3) NOT NULL,
    "period_end" TIMESTAMPTZ(3) NOT NULL,
    "sessions_count" INTEGER NOT NULL,
    "signed_notes_count" INTEGER NOT NULL,
    "goals" JSONB NOT NULL DEFAULT '[]',
    "assessments" JSONB NOT NULL DEFAULT '[]',
    "stalled_goal_ids" TEXT[] DEFAULT ARRAY[]::TEXT[],
    "dedupe_key" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "child_progress_reports_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "provider_onboardings" (
    "provider_id" TEXT NOT NULL,
    "tenant_id" TEXT NOT NULL,
    "status" "ProviderOnboardingRunStatus" NOT NULL DEFAULT 'IN_PROGRESS',
    "step" "ProviderOnboardingStep" NOT NULL DEFAULT 'PROFILE',
    "step_started_at" TIMESTAMPTZ(3) NOT NULL,
    "step_deadline_at" TIMESTAMPTZ(3),
    "next_reminder_at" TIMESTAMPTZ(3),
    "profile_confirmed_at" TIMESTAMPTZ(3),
    "documents" JSONB NOT NULL DEFAULT '[]',
    "documents_submitted_at" TIMESTAMPTZ(3),
    "licence_verification" JSONB,
    "licence_verified_at" TIMESTAMPTZ(3),
    "background_check" JSONB,
    "background_check_completed_at" TIMESTAMPTZ(3),
    "decision_note" TEXT,
    "attempt" INTEGER NOT NULL DEFAULT 1,
    "started_at" TIMESTAMPTZ(3) NOT NULL,
    "closed_at" TIMESTAMPTZ(3),
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "provider_onboardings_pkey" PRIMARY KEY ("provider_id")
);

-- CreateIndex
CREATE INDEX "care_notifications_child_id_created_at_id_idx" ON "care_notifications"("child_id", "created_at", "id");

-- CreateIndex
CREATE INDEX "care_notifications_provider_id_created_at_id_idx" ON "care_notifications"("provider_id", "created_at", "id");

-- CreateIndex
CREATE UNIQUE INDEX "care_notifications_tenant_id_dedupe_key_key" ON "care_notifications"("tenant_id", "dedupe_key");

-- CreateIndex
CREATE INDEX "early_intervention_plans_tenant_id_status_idx" ON "early_intervention_plans"("tenant_id", "status");

-- CreateIndex
CREATE INDEX "child_progress_reports_child_id_period_end_id_idx" ON "child_progress_reports"("child_id", "period_end", "id");

-- CreateIndex
CREATE UNIQUE INDEX "child_progress_reports_tenant_id_dedupe_key_key" ON "child_progress_reports"("tenant_id", "dedupe_key");

-- CreateIndex
CREATE INDEX "provider_onboardings_tenant_id_status_idx" ON "provider_onboardings"("tenant_id", "status");

-- AddForeignKey
ALTER TABLE "care_notifications" ADD CONSTRAINT "care_notifications_child_id_fkey" FOREIGN KEY ("child_id") REFERENCES "children"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "care_notifications" ADD CONSTRAINT "care_notifications_provider_id_fkey" FOREIGN KEY ("provider_id") REFERENCES "providers"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "early_intervention_plans" ADD CONSTRAINT "early_intervention_plans_child_id_fkey" FOREIGN KEY ("child_id") REFERENCES "children"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "child_progress_reports" ADD CONSTRAINT "child_progress_reports_child_id_fkey" FOREIGN KEY ("child_id") REFERENCES "children"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "provider_onboardings" ADD CONSTRAINT "provider_onboardings_provider_id_fkey" FOREIGN KEY ("provider_id") REFERENCES "providers"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- A notification is always about someone: a child or a provider.
ALTER TABLE "care_notifications" ADD CONSTRAINT "care_notifications_subject_check" CHECK ("child_id" IS NOT NULL OR "provider_id" IS NOT NULL);

-- Row-level security: every new table holds one tenant's data.
ALTER TABLE "care_notifications" ENABLE ROW LEVEL SECURITY;
CREATE POLICY tenant_isolation ON "care_notifications" USING (tenant_id = app_current_tenant()) WITH CHECK (tenant_id = app_current_tenant());
ALTER TABLE "early_intervention_plans" ENABLE ROW LEVEL SECURITY;
CREATE POLICY tenant_isolation ON "early_intervention_plans" USING (tenant_id = app_current_tenant()) WITH CHECK (tenant_id = app_current_tenant());
ALTER TABLE "child_progress_reports" ENABLE ROW LEVEL SECURITY;
CREATE POLICY tenant_isolation ON "child_progress_reports" USING (tenant_id = app_current_tenant()) WITH CHECK (tenant_id = app_current_tenant());
ALTER TABLE "provider_onboardings" ENABLE ROW LEVEL SECURITY;
CREATE POLICY tenant_isolation ON "provider_onboardings" USING (tenant_id = app_current_tenant()) WITH CHECK (tenant_id = app_current_tenant());
