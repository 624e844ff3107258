-- CreateEnum
CREATE TYPE "SessionStatus" AS ENUM ('SCHEDULED', 'IN_PROGRESS', 'COMPLETED', 'CANCELLED');

-- CreateEnum
CREATE TYPE "SessionAttendance" AS ENUM ('PRESENT', 'LATE', 'ABSENT_EXCUSED', 'ABSENT_UNEXCUSED', 'CANCELLED_LATE');

-- CreateEnum
CREATE TYPE "SessionNoteStatus" AS ENUM ('DRAFT', 'SIGNED');

-- CreateEnum
CREATE TYPE "AssessmentStatus" AS ENUM ('SCHEDULED', 'DUE', 'OVERDUE', 'COMPLETED', 'CANCELLED');

-- CreateEnum
CREATE TYPE "AssessmentNotificationKind" AS ENUM ('REMINDER', 'DUE', 'ESCALATION');

-- CreateTable
CREATE TABLE "sessions" (
    "id" TEXT NOT NULL,
    "tenant_id" TEXT NOT NULL,
    "appointment_id" TEXT NOT NULL,
    "child_id" TEXT NOT NULL,
    "provider_id" TEXT NOT NULL,
    "location_id" TEXT NOT NULL,
    "status" "SessionStatus" NOT NULL DEFAULT 'SCHEDULED',
    "scheduled_starts_at" TIMESTAMPTZ(3) NOT NULL,
    "scheduled_ends_at" TIMESTAMPTZ(3) NOT NULL,
    "time_zone" TEXT NOT NULL,
    "actual_started_at" TIMESTAMPTZ(3),
    "actual_ended_at" TIMESTAMPTZ(3),
    "attendance" "SessionAttendance",
    "billing_codes" JSONB NOT NULL DEFAULT '[]',
    "place_of_service" TEXT,
    "telehealth" BOOLEAN NOT NULL DEFAULT false,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "sessions_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "session_notes" (
    "id" TEXT NOT NULL,
    "tenant_id" TEXT NOT NULL,
    "session_id" TEXT NOT NULL,
    "status" "SessionNoteStatus" NOT NULL DEFAULT 'DRAFT',
    "subjective" TEXT,
    "objective" JSONB NOT NULL DEFAULT '{}',
    "assessment" TEXT,
    "plan" TEXT,
    "created_by_type" TEXT NOT NULL,
    "created_by_id" TEXT,
    "signed_at" TIMESTAMPTZ(3),
    "signed_by_provider_id" TEXT,
    "signed_by_type" TEXT,
    "signed_by_id" TEXT,
    "content_hash" TEXT,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "session_notes_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "note_addenda" (
    "id" TEXT NOT NULL,
    "tenant_id" TEXT NOT NULL,
    "note_id" TEXT NOT NULL,
    "text" TEXT NOT NULL,
    "author_type" TEXT NOT NULL,
    "author_id" TEXT,
    "author_provider_id" TEXT,
    "content_hash" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "note_addenda_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "assessments" (
    "id" TEXT NOT NULL,
    "tenant_id" TEXT NOT NULL,
    "child_id" TEXT NOT NULL,
    "provider_id" TEXT,
    "instrument" TEXT NOT NULL,
    "status" "AssessmentStatus" NOT NULL DEFAULT 'SCHEDULED',
    "due_date" DATE,
    "reassessment_cadence_days" INTEGER,
    "scores" JSONB,
    "completed_at" TIMESTAMPTZ(3),
    "cancelled_at" TIMESTAMPTZ(3),
    "previous_assessment_id" TEXT,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "assessments_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "assessment_notifications" (
    "id" TEXT NOT NULL,
    "tenant_id" TEXT NOT NULL,
    "assessment_id" TEXT NOT NULL,
    "kind" "AssessmentNotificationKind" NOT NULL,
    "due_date" DATE NOT NULL,
    "days_from_due" INTEGER NOT NULL,
    "recipient_provider_id" TEXT,
    "dedupe_key" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "assessment_notifications_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "sessions_appointment_id_key" ON "sessions"("appointment_id");

-- CreateIndex
CREATE INDEX "sessions_tenant_id_scheduled_starts_at_id_idx" ON "sessions"("tenant_id", "scheduled_starts_at", "id");

-- CreateIndex
CREATE INDEX "sessions_tenant_id_created_at_id_idx" ON "sessions"("tenant_id", "created_at", "id");

-- CreateIndex
CREATE INDEX "sessions_child_id_scheduled_starts_at_idx" ON "sessions"("child_id", "scheduled_starts_at");

-- CreateIndex
CREATE INDEX "sessions_provider_id_scheduled_starts_at_idx" ON "sessions"("provider_id", "scheduled_starts_at");

-- CreateIndex
CREATE INDEX "session_notes_session_id_created_at_idx" ON "session_notes"("session_id", "created_at");

-- CreateIndex
CREATE INDEX "session_notes_tenant_id_created_at_idx" ON "session_notes"("tenant_id", "created_at");

-- CreateIndex
CREATE INDEX "note_addenda_note_id_created_at_idx" ON "note_addenda"("note_id", "created_at");

-- CreateIndex
CREATE UNIQUE INDEX "assessments_previous_assessment_id_key" ON "assessments"("previous_assessment_id");

-- CreateIndex
CREATE INDEX "assessments_tenant_id_created_at_id_idx" ON "assessments"("tenant_id", "created_at", "id");

-- CreateIndex
CREATE INDEX "assessments_tenant_id_due_date_id_idx" ON "assessments"("tenant_id", "due_date", "id");

-- CreateIndex
CREATE INDEX "assessments_child_id_due_date_idx" ON "assessments"("child_id", "due_date");

-- CreateIndex
CREATE INDEX "assessment_notifications_assessment_id_created_at_idx" ON "assessment_notifications"("assessment_id", "created_at");

-- CreateIndex
CREATE UNIQUE INDEX "assessment_notifications_tenant_id_dedupe_key_key" ON "assessment_notifications"("tenant_id", "dedupe_key");

-- AddForeignKey
ALTER TABLE "sessions" ADD CONSTRAINT "sessions_appointment_id_fkey" FOREIGN KEY ("appointment_id") REFERENCES "appointments"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "session_notes" ADD CONSTRAINT "session_notes_session_id_fkey" FOREIGN KEY ("session_id") REFERENCES "sessions"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "note_addenda" ADD CONSTRAINT "note_addenda_note_id_fkey" FOREIGN KEY ("note_id") REFERENCES "session_notes"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "assessments" ADD CONSTRAINT "assessments_child_id_fkey" FOREIGN KEY ("child_id") REFERENCES "children"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "assessments" ADD CONSTRAINT "assessments_provider_id_fkey" FOREIGN KEY ("provider_id") REFERENCES "providers"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "assessments" ADD CONSTRAINT "assessments_previous_assessment_id_fkey" FOREIGN KEY ("previous_assessment_id") REFERENCES "assessments"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "assessment_notifications" ADD CONSTRAINT "assessment_notifications_assessment_id_fkey" FOREIGN KEY ("assessment_id") REFERENCES "assessments"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- Tenant isolation (see 20261121185800_row_level_security): every tenant table gets the same policy.
ALTER TABLE "sessions" ENABLE ROW LEVEL SECURITY;
CREATE POLICY tenant_isolation ON "sessions"
  USING (tenant_id = app_current_tenant()) WITH CHECK (tenant_id = app_current_tenant());
ALTER TABLE "session_notes" ENABLE ROW LEVEL SECURITY;
CREATE POLICY tenant_isolation ON "session_notes"
  USING (tenant_id = app_current_tenant()) WITH CHECK (tenant_id = app_current_tenant());
ALTER TABLE "note_addenda" ENABLE ROW LEVEL SECURITY;
CREATE POLICY tenant_isolation ON "note_addenda"
  USING (tenant_id = app_current_tenant()) WITH CHECK (tenant_id = app_current_tenant());
ALTER TABLE "assessments" ENABLE ROW LEVEL SECURITY;
CREATE POLICY tenant_isolation ON "assessments"
  USING (tenant_id = app_current_tenant()) WITH CHECK (tenant_id = app_current_tenant());
ALTER TABLE "assessment_notifications" ENABLE ROW LEVEL SECURITY;
CREATE POLICY tenant_isolation ON "assessment_notifications"
  USING (tenant_id = app_current_tenant()) WITH CHECK (tenant_id = app_current_tenant());

-- A signed note carries its signature (time, provider) and content hash; a draft carries none of them.
ALTER TABLE "session_notes" ADD CONSTRAINT "session_notes_signature_check" CHECK (
  (status = 'DRAFT' AND signed_at IS NULL AND content_hash IS NULL AND signed_by_provider_id IS NULL)
  OR (status = 'SIGNED' AND signed_at IS NOT NULL AND content_hash IS NOT NULL AND signed_by_provider_id IS NOT NULL)
);
ALTER TABLE "assessments" ADD CONSTRAINT "assessments_cadence_check"
  CHECK (reassessment_cadence_days IS NULL OR reassessment_cadence_days > 0);

-- Signed notes are part of the clinical record: the database itself refuses to change or delete one (defence in
-- depth behind the service's `note_locked`), and addenda are append-only.
CREATE FUNCTION session_notes_locked() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF OLD.status = 'SIGNED' THEN
    RAISE EXCEPTION 'signed session notes are immutable' USING ERRCODE = 'insufficient_privilege';
  END IF;
  IF TG_OP = 'DELETE' THEN
    RETURN OLD;
  END IF;
  RETURN NEW;
END
$$;
CREATE TRIGGER session_notes_locked BEFORE UPDATE OR DELETE ON "session_notes"
  FOR EACH ROW EXECUTE FUNCTION session_notes_locked();

CREATE FUNCTION note_addenda_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION 'note addenda are append-only' USING ERRCODE = 'insufficient_privilege';
END
$$;
CREATE TRIGGER note_addenda_append_only BEFORE UPDATE OR DELETE ON "note_addenda"
  FOR EACH ROW EXECUTE FUNCTION note_addenda_append_only();
