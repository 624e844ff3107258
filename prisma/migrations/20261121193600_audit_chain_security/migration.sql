-- audit_chain gets the guarantees audit_events has (20261121185800_row_level_security): row-level security by
-- tenant, and append-only for everyone. The application role may read its tenant's chain and append to it (the
-- sealer may run as the tenant); the default privileges of the earlier migration granted it UPDATE and DELETE too,
-- which are taken back here.

ALTER TABLE audit_chain ENABLE ROW LEVEL SECURITY;
CREATE POLICY tenant_isolation ON audit_chain
  USING (tenant_id = app_current_tenant()) WITH CHECK (tenant_id = app_current_tenant());

REVOKE ALL ON audit_chain FROM therapy_app;
GRANT SELECT, INSERT ON audit_chain TO therapy_app;

-- The same refusal as audit_events': changing or removing a link needs DDL, and verification exposes the change.
-- The function now names the table it guards, so one function serves both (its message for audit_events is unchanged).
CREATE OR REPLACE FUNCTION audit_events_append_only() RETURNS trigger
  LANGUAGE plpgsql
  AS $$
BEGIN
  RAISE EXCEPTION '% is append-only', TG_TABLE_NAME USING ERRCODE = 'insufficient_privilege';
END
$$;

CREATE TRIGGER audit_chain_append_only
  BEFORE UPDATE OR DELETE ON audit_chain
  FOR EACH ROW EXECUTE FUNCTION audit_events_append_only();
