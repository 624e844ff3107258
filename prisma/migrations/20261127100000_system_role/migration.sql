-- The role of the platform's cross-tenant statements (issue 55, item 3; docs/security.md, "Least privilege in the
-- database"): the token and API-key checks made before a request's tenant is known, the outbox sweeps, the webhook
-- delivery pumps, the audit sealer, revocation sync, the rate-limit counters. Until now they ran as the login that owns
-- every table, which row-level security does not bind and which may change any table's rules. therapy_system owns
-- nothing and cannot log in: a login joins it (scripts/db/application-logins.ts), and the units of work log in as
-- another role that can only become therapy_app, so `RESET ROLE` inside a request's transaction reaches neither the
-- owner nor this role.
--
-- It may read and write rows of every tenant (a policy of its own beside tenant_isolation), as those statements need,
-- but it cannot alter, truncate or disable row-level security on any table, cannot change the audit trail or the
-- append-only ledger, and reads no clinical note or plan.
DO $$
BEGIN
  IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'therapy_system') THEN
    CREATE ROLE therapy_system NOLOGIN NOBYPASSRLS NOINHERIT;
  END IF;
END
$$;

-- Idempotent, and called again by the login provisioning at every start (scripts/db/application-logins.ts): a table
-- made after this migration by a function an operator runs (knowledge_enable_pgvector) gets the same rules.
CREATE OR REPLACE FUNCTION app_grant_system_role() RETURNS void
  LANGUAGE plpgsql
  AS $fn$
DECLARE
  t record;
BEGIN
  GRANT USAGE ON SCHEMA public TO therapy_system;
  GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA public TO therapy_system;
  IF EXISTS (SELECT FROM pg_namespace WHERE nspname = 'ai_vectors') THEN
    GRANT USAGE ON SCHEMA ai_vectors TO therapy_system;
    GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA ai_vectors TO therapy_system;
  END IF;
  -- Append-only: the audit trail and the books are written once and never changed, by anyone below the owner.
  REVOKE UPDATE, DELETE ON audit_events, ledger_entries, ledger_lines FROM therapy_system;
  -- Prisma's own bookkeeping is the migrator's.
  REVOKE ALL ON _prisma_migrations FROM therapy_system;
  -- Clinical notes and plans are read and written in their tenant's units only: no cross-tenant statement needs them
  -- (none touched them through a whole CI run; docs/security.md), so a statement gone wrong cannot read them.
  REVOKE ALL ON session_notes, note_addenda, early_intervention_plans, child_progress_reports FROM therapy_system;
  FOR t IN
    SELECT n.nspname, c.relname
      FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
     WHERE c.relkind IN ('r', 'p') AND c.relrowsecurity AND n.nspname IN ('public', 'ai_vectors')
       AND NOT EXISTS (
         SELECT FROM pg_policy p WHERE p.polrelid = c.oid AND p.polname = 'system_access'
       )
  LOOP
    EXECUTE format(
      'CREATE POLICY system_access ON %I.%I TO therapy_system USING (true) WITH CHECK (true)', t.nspname, t.relname
    );
  END LOOP;
END
$fn$;

SELECT app_grant_system_role();
