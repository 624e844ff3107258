-- CreateEnum
CREATE TYPE "ProviderOnboardingStatus" AS ENUM ('INVITED', 'IN_REVIEW', 'APPROVED', 'SUSPENDED', 'OFFBOARDED');

-- CreateEnum
CREATE TYPE "TimeOffReason" AS ENUM ('VACATION', 'SICK_LEAVE', 'TRAINING', 'HOLIDAY', 'PERSONAL', 'OTHER');

-- AlterTable
ALTER TABLE "locations" ADD COLUMN     "address_line1" TEXT,
ADD COLUMN     "address_line2" TEXT,
ADD COLUMN     "city" TEXT,
ADD COLUMN     "country" TEXT,
ADD COLUMN     "postal_code" TEXT,
ADD COLUMN     "region" TEXT;

-- AlterTable
ALTER TABLE "providers" ADD COLUMN     "age_groups" TEXT[] DEFAULT ARRAY[]::TEXT[],
ADD COLUMN     "approved_at" TIMESTAMPTZ(3),
ADD COLUMN     "credentials" JSONB NOT NULL DEFAULT '[]',
ADD COLUMN     "disciplines" TEXT[] DEFAULT ARRAY[]::TEXT[],
ADD COLUMN     "email" TEXT,
ADD COLUMN     "languages" TEXT[] DEFAULT ARRAY[]::TEXT[],
ADD COLUMN     "licence_expires_on" DATE,
ADD COLUMN     "offboarded_at" TIMESTAMPTZ(3),
ADD COLUMN     "onboarding_status" "ProviderOnboardingStatus" NOT NULL DEFAULT 'APPROVED',
ADD COLUMN     "telehealth" BOOLEAN NOT NULL DEFAULT false,
ADD COLUMN     "weekly_hours" JSONB;

-- CreateTable
CREATE TABLE "provider_locations" (
    "tenant_id" TEXT NOT NULL,
    "provider_id" TEXT NOT NULL,
    "location_id" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "provider_locations_pkey" PRIMARY KEY ("provider_id","location_id")
);

-- CreateTable
CREATE TABLE "provider_time_off" (
    "id" TEXT NOT NULL,
    "tenant_id" TEXT NOT NULL,
    "provider_id" TEXT NOT NULL,
    "starts_at" TIMESTAMPTZ(3) NOT NULL,
    "ends_at" TIMESTAMPTZ(3) NOT NULL,
    "reason" "TimeOffReason" NOT NULL,
    "note" TEXT,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "provider_time_off_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "provider_locations_tenant_id_location_id_idx" ON "provider_locations"("tenant_id", "location_id");

-- CreateIndex
CREATE INDEX "provider_time_off_provider_id_starts_at_idx" ON "provider_time_off"("provider_id", "starts_at");

-- CreateIndex
CREATE INDEX "provider_time_off_tenant_id_created_at_idx" ON "provider_time_off"("tenant_id", "created_at");

-- AddForeignKey
ALTER TABLE "provider_locations" ADD CONSTRAINT "provider_locations_provider_id_fkey" FOREIGN KEY ("provider_id") REFERENCES "providers"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "provider_locations" ADD CONSTRAINT "provider_locations_location_id_fkey" FOREIGN KEY ("location_id") REFERENCES "locations"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "provider_time_off" ADD CONSTRAINT "provider_time_off_provider_id_fkey" FOREIGN KEY ("provider_id") REFERENCES "providers"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- Tenant isolation (see 20261121185800_row_level_security): every tenant table gets the same policy.
ALTER TABLE "provider_locations" ENABLE ROW LEVEL SECURITY;
CREATE POLICY tenant_isolation ON "provider_locations" USING (tenant_id = app_current_tenant()) WITH CHECK (tenant_id = app_current_tenant());
ALTER TABLE "provider_time_off" ENABLE ROW LEVEL SECURITY;
CREATE POLICY tenant_isolation ON "provider_time_off" USING (tenant_id = app_current_tenant()) WITH CHECK (tenant_id = app_current_tenant());

-- Rules Prisma cannot express: a time-off range is not empty; location policies are not negative.
ALTER TABLE "provider_time_off" ADD CONSTRAINT "provider_time_off_range_check" CHECK ("ends_at" > "starts_at");
ALTER TABLE "locations" ADD CONSTRAINT "locations_policy_minutes_check"
  CHECK ("buffer_minutes" >= 0 AND "minimum_notice_minutes" >= 0 AND "late_cancellation_hours" >= 0 AND "note_due_hours" >= 0);

-- Every provider works at least at its primary location: existing providers get that link.
INSERT INTO "provider_locations" ("tenant_id", "provider_id", "location_id")
SELECT "tenant_id", "id", "location_id" FROM "providers"
ON CONFLICT DO NOTHING;
