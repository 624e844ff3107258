-- SSO identities per tenant (docs/access-control.md, "SSO (OpenID Connect)", issue 55): a platform user is unique per
-- tenant, issuer and subject, and an SSO connection per tenant, issuer and audience. Unique across tenants, another
-- tenant could pre-claim a subject (the owner's real sign-ins then refused) or take an issuer and audience first.
-- A token is resolved through the connections of its issuer and audience, whatever their tenant: the index on
-- (issuer, audience) serves that lookup, and the new unique index, led by the tenant, serves the tenant's own listing
-- (it replaces the index on the tenant alone).
DROP INDEX "platform_users_sso_issuer_sso_subject_key";
CREATE UNIQUE INDEX "platform_users_tenant_id_sso_issuer_sso_subject_key"
  ON "platform_users" ("tenant_id", "sso_issuer", "sso_subject");

DROP INDEX "sso_connections_issuer_audience_key";
DROP INDEX "sso_connections_tenant_id_idx";
CREATE UNIQUE INDEX "sso_connections_tenant_id_issuer_audience_key"
  ON "sso_connections" ("tenant_id", "issuer", "audience");
CREATE INDEX "sso_connections_issuer_audience_idx" ON "sso_connections" ("issuer", "audience");
