-- An issuer and audience belong to one tenant (issue 76): a tenant could register another's public issuer and
-- audience, and the victim's tokens then answered 401 sso_connection_ambiguous unless every client sent X-Tenant-Id.
-- Pairs already registered by several tenants keep working as before: the oldest registration of each pair holds it,
-- the later ones of other tenants are marked `shared_before_one_tenant_rule` and stay out of the unique index (their
-- tokens are still resolved by X-Tenant-Id, domain/auth/sso.ts). Every registration from now on takes the pair alone.
ALTER TABLE "sso_connections" ADD COLUMN "shared_before_one_tenant_rule" BOOLEAN NOT NULL DEFAULT false;

UPDATE "sso_connections" AS later
SET "shared_before_one_tenant_rule" = true
WHERE EXISTS (
  SELECT 1 FROM "sso_connections" AS earlier
  WHERE earlier."issuer" = later."issuer"
    AND earlier."audience" = later."audience"
    AND earlier."tenant_id" <> later."tenant_id"
    AND (earlier."created_at", earlier."id") < (later."created_at", later."id")
);

CREATE UNIQUE INDEX "sso_connections_issuer_audience_one_tenant"
  ON "sso_connections" ("issuer", "audience")
  WHERE NOT "shared_before_one_tenant_rule";
