-- AlterTable
ALTER TABLE "children" ADD COLUMN     "archived_at" TIMESTAMPTZ(3),
ADD COLUMN     "diagnoses" JSONB NOT NULL DEFAULT '[]',
ADD COLUMN     "ei_consent_date" DATE,
ADD COLUMN     "ei_exit_date" DATE,
ADD COLUMN     "ei_initial_ifsp_date" DATE,
ADD COLUMN     "ei_last_ifsp_review_date" DATE,
ADD COLUMN     "ei_referral_date" DATE,
ADD COLUMN     "ei_referral_source" TEXT,
ADD COLUMN     "ei_service_coordinator" JSONB,
ADD COLUMN     "goals" JSONB NOT NULL DEFAULT '[]',
ADD COLUMN     "languages" TEXT[] DEFAULT ARRAY[]::TEXT[];

-- CreateTable
CREATE TABLE "clients" (
    "id" TEXT NOT NULL,
    "tenant_id" TEXT NOT NULL,
    "location_id" TEXT NOT NULL,
    "first_name" TEXT NOT NULL,
    "last_name" TEXT NOT NULL,
    "email" TEXT,
    "phone" TEXT,
    "preferred_language" TEXT,
    "address" JSONB,
    "roles" TEXT[] DEFAULT ARRAY[]::TEXT[],
    "custom_fields" JSONB NOT NULL DEFAULT '{}',
    "archived_at" TIMESTAMPTZ(3),
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "clients_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "child_client_links" (
    "tenant_id" TEXT NOT NULL,
    "child_id" TEXT NOT NULL,
    "client_id" TEXT NOT NULL,
    "relationship" TEXT NOT NULL,
    "primary_contact" BOOLEAN NOT NULL DEFAULT false,
    "legal_guardian" BOOLEAN NOT NULL DEFAULT false,
    "financially_responsible" BOOLEAN NOT NULL DEFAULT false,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "child_client_links_pkey" PRIMARY KEY ("child_id","client_id")
);

-- CreateTable
CREATE TABLE "custom_field_definitions" (
    "id" TEXT NOT NULL,
    "tenant_id" TEXT NOT NULL,
    "location_id" TEXT NOT NULL,
    "key" TEXT NOT NULL,
    "label" TEXT NOT NULL,
    "description" TEXT,
    "type" TEXT NOT NULL,
    "required" BOOLEAN NOT NULL DEFAULT false,
    "options" TEXT[] DEFAULT ARRAY[]::TEXT[],
    "position" INTEGER NOT NULL DEFAULT 0,
    "archived_at" TIMESTAMPTZ(3),
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "custom_field_definitions_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "pets" (
    "id" TEXT NOT NULL,
    "tenant_id" TEXT NOT NULL,
    "owner_client_id" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "species" TEXT NOT NULL,
    "breed" TEXT,
    "temperament" TEXT,
    "notes" TEXT,
    "therapy_animal" BOOLEAN NOT NULL DEFAULT false,
    "certification_registry" TEXT,
    "certification_number" TEXT,
    "certification_expires_on" DATE,
    "archived_at" TIMESTAMPTZ(3),
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "pets_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "clients_tenant_id_created_at_id_idx" ON "clients"("tenant_id", "created_at", "id");

-- CreateIndex
CREATE INDEX "clients_tenant_id_last_name_id_idx" ON "clients"("tenant_id", "last_name", "id");

-- CreateIndex
CREATE INDEX "clients_tenant_id_email_idx" ON "clients"("tenant_id", "email");

-- CreateIndex
CREATE INDEX "child_client_links_tenant_id_client_id_idx" ON "child_client_links"("tenant_id", "client_id");

-- CreateIndex
CREATE INDEX "custom_field_definitions_tenant_id_created_at_id_idx" ON "custom_field_definitions"("tenant_id", "created_at", "id");

-- CreateIndex
CREATE UNIQUE INDEX "custom_field_definitions_tenant_id_location_id_key_key" ON "custom_field_definitions"("tenant_id", "location_id", "key");

-- CreateIndex
CREATE INDEX "pets_tenant_id_created_at_id_idx" ON "pets"("tenant_id", "created_at", "id");

-- CreateIndex
CREATE INDEX "pets_tenant_id_name_id_idx" ON "pets"("tenant_id", "name", "id");

-- CreateIndex
CREATE INDEX "pets_tenant_id_owner_client_id_idx" ON "pets"("tenant_id", "owner_client_id");

-- CreateIndex
CREATE INDEX "children_tenant_id_last_name_id_idx" ON "children"("tenant_id", "last_name", "id");

-- CreateIndex
CREATE INDEX "children_tenant_id_date_of_birth_id_idx" ON "children"("tenant_id", "date_of_birth", "id");

-- AddForeignKey
ALTER TABLE "clients" ADD CONSTRAINT "clients_tenant_id_fkey" FOREIGN KEY ("tenant_id") REFERENCES "tenants"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "clients" ADD CONSTRAINT "clients_location_id_fkey" FOREIGN KEY ("location_id") REFERENCES "locations"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "child_client_links" ADD CONSTRAINT "child_client_links_child_id_fkey" FOREIGN KEY ("child_id") REFERENCES "children"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "child_client_links" ADD CONSTRAINT "child_client_links_client_id_fkey" FOREIGN KEY ("client_id") REFERENCES "clients"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "custom_field_definitions" ADD CONSTRAINT "custom_field_definitions_tenant_id_fkey" FOREIGN KEY ("tenant_id") REFERENCES "tenants"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "custom_field_definitions" ADD CONSTRAINT "custom_field_definitions_location_id_fkey" FOREIGN KEY ("location_id") REFERENCES "locations"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "pets" ADD CONSTRAINT "pets_tenant_id_fkey" FOREIGN KEY ("tenant_id") REFERENCES "tenants"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "pets" ADD CONSTRAINT "pets_owner_client_id_fkey" FOREIGN KEY ("owner_client_id") REFERENCES "clients"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- Tenant isolation (see 20261121185800_row_level_security): every tenant table gets the same policy.
ALTER TABLE "clients" ENABLE ROW LEVEL SECURITY;
CREATE POLICY tenant_isolation ON "clients" USING (tenant_id = app_current_tenant()) WITH CHECK (tenant_id = app_current_tenant());
ALTER TABLE "child_client_links" ENABLE ROW LEVEL SECURITY;
CREATE POLICY tenant_isolation ON "child_client_links" USING (tenant_id = app_current_tenant()) WITH CHECK (tenant_id = app_current_tenant());
ALTER TABLE "custom_field_definitions" ENABLE ROW LEVEL SECURITY;
CREATE POLICY tenant_isolation ON "custom_field_definitions" USING (tenant_id = app_current_tenant()) WITH CHECK (tenant_id = app_current_tenant());
ALTER TABLE "pets" ENABLE ROW LEVEL SECURITY;
CREATE POLICY tenant_isolation ON "pets" USING (tenant_id = app_current_tenant()) WITH CHECK (tenant_id = app_current_tenant());
