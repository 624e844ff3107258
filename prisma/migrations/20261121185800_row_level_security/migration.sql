-- Tenant isolation enforced by the database (not only by WHERE clauses), and an append-only audit trail.
--
-- The application runs every tenant-scoped unit of work as the role therapy_app (SET LOCAL ROLE), which owns no
-- table and has no BYPASSRLS, so row-level security applies to it even when the login role is a superuser (the
-- embedded PGlite) or the tables' owner. System work that must cross tenants (the token endpoint finding a client by
-- id, the outbox sweep, migrations) runs as the login role.

DO $$
BEGIN
  IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'therapy_app') THEN
    CREATE ROLE therapy_app NOLOGIN NOBYPASSRLS;
  END IF;
END
$$;

-- The login role must be able to switch to therapy_app.
DO $$
BEGIN
  IF NOT pg_has_role(current_user, 'therapy_app', 'MEMBER') THEN
    EXECUTE format('GRANT therapy_app TO %I', current_user);
  END IF;
END
$$;

GRANT USAGE ON SCHEMA public TO therapy_app;
GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA public TO therapy_app;
ALTER DEFAULT PRIVILEGES IN SCHEMA public GRANT SELECT, INSERT, UPDATE, DELETE ON TABLES TO therapy_app;

-- The tenant of the current transaction; NULL (no rows) when none was set.
CREATE OR REPLACE FUNCTION app_current_tenant() RETURNS text
  LANGUAGE sql STABLE
  AS $$ SELECT NULLIF(current_setting('app.tenant_id', true), '') $$;

ALTER TABLE tenants ENABLE ROW LEVEL SECURITY;
CREATE POLICY tenant_isolation ON tenants
  USING (id = app_current_tenant()) WITH CHECK (id = app_current_tenant());

DO $$
DECLARE
  t text;
BEGIN
  FOREACH t IN ARRAY ARRAY[
    'locations', 'api_clients', 'refresh_tokens', 'providers', 'children', 'appointments',
    'idempotency_records', 'workflow_outbox', 'api_keys', 'platform_users', 'sso_connections',
    'audit_events', 'revoked_access_tokens'
  ] LOOP
    EXECUTE format('ALTER TABLE %I ENABLE ROW LEVEL SECURITY', t);
    EXECUTE format(
      'CREATE POLICY tenant_isolation ON %I USING (tenant_id = app_current_tenant()) WITH CHECK (tenant_id = app_current_tenant())',
      t
    );
  END LOOP;
END
$$;

-- Signing keys and rate-limit counters are platform-wide, never tenant data: the application role does not see keys.
REVOKE ALL ON signing_keys FROM therapy_app;

-- The audit trail is append-only: the application role cannot change or remove a record, and a trigger refuses
-- UPDATE and DELETE from anyone, so tampering needs a deliberate DDL change that the hash chain then exposes.
REVOKE UPDATE, DELETE, TRUNCATE ON audit_events FROM therapy_app;

CREATE OR REPLACE FUNCTION audit_events_append_only() RETURNS trigger
  LANGUAGE plpgsql
  AS $$
BEGIN
  RAISE EXCEPTION 'audit_events is append-only' USING ERRCODE = 'insufficient_privilege';
END
$$;

CREATE TRIGGER audit_events_append_only
  BEFORE UPDATE OR DELETE ON audit_events
  FOR EACH ROW EXECUTE FUNCTION audit_events_append_only();
