/*
  Warnings:

  - A unique constraint covering the columns `[series_id,occurrence_date]` on the table `appointments` will be added. If there are existing duplicate values, this will fail.
  - The required column `service` is added with a temporary default for existing rows (see the hand-written part).

*/
-- CreateEnum
CREATE TYPE "CancellationReason" AS ENUM ('FAMILY_REQUEST', 'ILLNESS', 'PROVIDER_UNAVAILABLE', 'CENTRE_CLOSED', 'WEATHER', 'SCHEDULING_CONFLICT', 'OTHER');

-- CreateEnum
CREATE TYPE "RecurrenceFrequency" AS ENUM ('WEEKLY');

-- AlterEnum
-- This migration adds more than one value to an enum.
-- With PostgreSQL versions 11 and earlier, this is not possible
-- in a single migration. This can be worked around by creating
-- multiple migrations, each migration adding only one value to
-- the enum.


ALTER TYPE "AppointmentType" ADD VALUE 'ASSESSMENT';
ALTER TYPE "AppointmentType" ADD VALUE 'SCREENING';
ALTER TYPE "AppointmentType" ADD VALUE 'IFSP_MEETING';

-- AlterTable
ALTER TABLE "appointments" ADD COLUMN     "cancellation_note" TEXT,
ADD COLUMN     "cancellation_reason" "CancellationReason",
ADD COLUMN     "cancelled_at" TIMESTAMPTZ(3),
ADD COLUMN     "completed_at" TIMESTAMPTZ(3),
ADD COLUMN     "late_cancellation" BOOLEAN,
ADD COLUMN     "no_show_at" TIMESTAMPTZ(3),
ADD COLUMN     "occurrence_date" DATE,
ADD COLUMN     "series_id" TEXT,
ADD COLUMN     "service" TEXT NOT NULL DEFAULT 'SPEECH_THERAPY';

-- CreateTable
CREATE TABLE "appointment_reschedules" (
    "id" TEXT NOT NULL,
    "tenant_id" TEXT NOT NULL,
    "appointment_id" TEXT NOT NULL,
    "previous_starts_at" TIMESTAMPTZ(3) NOT NULL,
    "previous_ends_at" TIMESTAMPTZ(3) NOT NULL,
    "previous_provider_id" TEXT NOT NULL,
    "starts_at" TIMESTAMPTZ(3) NOT NULL,
    "ends_at" TIMESTAMPTZ(3) NOT NULL,
    "provider_id" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "appointment_reschedules_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "appointment_series" (
    "id" TEXT NOT NULL,
    "tenant_id" TEXT NOT NULL,
    "location_id" TEXT NOT NULL,
    "child_id" TEXT NOT NULL,
    "provider_id" TEXT NOT NULL,
    "type" "AppointmentType" NOT NULL,
    "service" TEXT NOT NULL,
    "time_zone" TEXT NOT NULL,
    "starts_at" TIMESTAMPTZ(3) NOT NULL,
    "duration_minutes" INTEGER NOT NULL,
    "frequency" "RecurrenceFrequency" NOT NULL,
    "interval" INTEGER NOT NULL,
    "by_weekday" TEXT[],
    "count" INTEGER,
    "until" DATE,
    "exception_dates" DATE[],
    "skipped_dates" DATE[],
    "cancelled_from" DATE,
    "notes" TEXT,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "appointment_series_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "appointment_reschedules_appointment_id_created_at_idx" ON "appointment_reschedules"("appointment_id", "created_at");

-- CreateIndex
CREATE INDEX "appointment_series_tenant_id_created_at_idx" ON "appointment_series"("tenant_id", "created_at");

-- CreateIndex
CREATE INDEX "appointment_series_child_id_idx" ON "appointment_series"("child_id");

-- CreateIndex
CREATE INDEX "appointment_series_provider_id_idx" ON "appointment_series"("provider_id");

-- CreateIndex
CREATE INDEX "appointments_tenant_id_starts_at_idx" ON "appointments"("tenant_id", "starts_at");

-- CreateIndex
CREATE UNIQUE INDEX "appointments_series_id_occurrence_date_key" ON "appointments"("series_id", "occurrence_date");

-- AddForeignKey
ALTER TABLE "appointments" ADD CONSTRAINT "appointments_series_id_fkey" FOREIGN KEY ("series_id") REFERENCES "appointment_series"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "appointment_reschedules" ADD CONSTRAINT "appointment_reschedules_appointment_id_fkey" FOREIGN KEY ("appointment_id") REFERENCES "appointments"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "appointment_series" ADD CONSTRAINT "appointment_series_location_id_fkey" FOREIGN KEY ("location_id") REFERENCES "locations"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "appointment_series" ADD CONSTRAINT "appointment_series_child_id_fkey" FOREIGN KEY ("child_id") REFERENCES "children"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "appointment_series" ADD CONSTRAINT "appointment_series_provider_id_fkey" FOREIGN KEY ("provider_id") REFERENCES "providers"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- ---- Hand-written (docs/appointments.md) ----

-- Rows booked before `service` existed: the documented default (EARLY_INTERVENTION for early-intervention visits,
-- SPEECH_THERAPY otherwise); no provider had disciplines to take one from. The default is dropped again so the
-- application always decides.
-- (the ADD COLUMN above carries a temporary DEFAULT for this backfill)
ALTER TABLE "appointments" ALTER COLUMN "service" DROP DEFAULT;
UPDATE "appointments" SET "service" = 'EARLY_INTERVENTION' WHERE "type" = 'EARLY_INTERVENTION';
ALTER TABLE "appointments" ADD CONSTRAINT "appointments_service_not_empty" CHECK ("service" <> '');
ALTER TABLE "appointment_series" ADD CONSTRAINT "appointment_series_service_not_empty" CHECK ("service" <> '');
ALTER TABLE "appointment_series" ADD CONSTRAINT "appointment_series_shape" CHECK (
  "interval" >= 1 AND "duration_minutes" > 0 AND ("count" IS NULL) <> ("until" IS NULL)
);

-- No double booking, enforced by the database: no provider and no child has two CONFIRMED appointments whose
-- half-open intervals [starts_at, ends_at) overlap (back to back is fine). Whatever the application checks first,
-- two transactions racing on different API instances cannot both commit an overlap: the second waits for the first
-- and fails with SQLSTATE 23P01, which the API answers as 409 slot_unavailable.
CREATE EXTENSION IF NOT EXISTS btree_gist;
ALTER TABLE "appointments" ADD CONSTRAINT "appointments_provider_no_overlap"
  EXCLUDE USING gist ("provider_id" WITH =, tstzrange("starts_at", "ends_at", '[)') WITH &&)
  WHERE ("status" = 'CONFIRMED');
ALTER TABLE "appointments" ADD CONSTRAINT "appointments_child_no_overlap"
  EXCLUDE USING gist ("child_id" WITH =, tstzrange("starts_at", "ends_at", '[)') WITH &&)
  WHERE ("status" = 'CONFIRMED');

ALTER TABLE "appointment_series" ENABLE ROW LEVEL SECURITY;
CREATE POLICY tenant_isolation ON "appointment_series" USING (tenant_id = app_current_tenant()) WITH CHECK (tenant_id = app_current_tenant());
ALTER TABLE "appointment_reschedules" ENABLE ROW LEVEL SECURITY;
CREATE POLICY tenant_isolation ON "appointment_reschedules" USING (tenant_id = app_current_tenant()) WITH CHECK (tenant_id = app_current_tenant());
