-- CreateEnum
CREATE TYPE "LeadStatus" AS ENUM ('NEW', 'QUALIFIED', 'DISQUALIFIED', 'MATCHED', 'OFFERED', 'BOOKED', 'LOST');

-- CreateEnum
CREATE TYPE "LeadCloseReason" AS ENUM ('NO_RESPONSE', 'NO_MATCH', 'FAMILY_DECLINED', 'CHOSE_ANOTHER_PROVIDER', 'UNREACHABLE', 'DUPLICATE', 'OTHER');

-- CreateTable
CREATE TABLE "leads" (
    "id" TEXT NOT NULL,
    "tenant_id" TEXT NOT NULL,
    "status" "LeadStatus" NOT NULL DEFAULT 'NEW',
    "client_id" TEXT,
    "child_id" TEXT,
    "contact_name" TEXT,
    "contact_email" TEXT,
    "contact_phone" TEXT,
    "location_id" TEXT,
    "postal_area" TEXT,
    "child_date_of_birth" DATE,
    "child_age_months" INTEGER,
    "disciplines" TEXT[] DEFAULT ARRAY[]::TEXT[],
    "concerns" TEXT[] DEFAULT ARRAY[]::TEXT[],
    "languages" TEXT[] DEFAULT ARRAY[]::TEXT[],
    "payer" TEXT NOT NULL,
    "setting_mode" TEXT NOT NULL DEFAULT 'ANY',
    "preferred_times" JSONB,
    "qualification" JSONB,
    "served_location_id" TEXT,
    "matches" JSONB NOT NULL DEFAULT '[]',
    "matched_at" TIMESTAMPTZ(3),
    "offered_slots" JSONB NOT NULL DEFAULT '[]',
    "offered_at" TIMESTAMPTZ(3),
    "follow_ups_sent" INTEGER NOT NULL DEFAULT 0,
    "next_follow_up_at" TIMESTAMPTZ(3),
    "respond_by" TIMESTAMPTZ(3),
    "appointment_id" TEXT,
    "closed_reason" "LeadCloseReason",
    "closed_note" TEXT,
    "closed_at" TIMESTAMPTZ(3),
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "leads_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "leads_tenant_id_created_at_id_idx" ON "leads"("tenant_id", "created_at", "id");

-- CreateIndex
CREATE INDEX "leads_tenant_id_status_created_at_id_idx" ON "leads"("tenant_id", "status", "created_at", "id");

-- An enquiry always says where, how old and how to reach the family (the API checks the same; this keeps every path honest).
ALTER TABLE "leads" ADD CONSTRAINT "leads_where_check" CHECK ("location_id" IS NOT NULL OR "postal_area" IS NOT NULL);
ALTER TABLE "leads" ADD CONSTRAINT "leads_age_check" CHECK ("child_date_of_birth" IS NOT NULL OR "child_age_months" IS NOT NULL OR "child_id" IS NOT NULL);
ALTER TABLE "leads" ADD CONSTRAINT "leads_contact_check" CHECK ("client_id" IS NOT NULL OR "contact_email" IS NOT NULL OR "contact_phone" IS NOT NULL);
ALTER TABLE "leads" ADD CONSTRAINT "leads_setting_mode_check" CHECK ("setting_mode" IN ('IN_PERSON', 'TELEHEALTH', 'ANY'));
-- A booked lead names its appointment; a closed one says when.
ALTER TABLE "leads" ADD CONSTRAINT "leads_booked_check" CHECK ("status" <> 'BOOKED' OR "appointment_id" IS NOT NULL);

-- Row-level security: every new table holds one tenant's data.
ALTER TABLE "leads" ENABLE ROW LEVEL SECURITY;
CREATE POLICY tenant_isolation ON "leads" USING (tenant_id = app_current_tenant()) WITH CHECK (tenant_id = app_current_tenant());
