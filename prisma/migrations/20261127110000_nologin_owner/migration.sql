-- The platform's tables belong to a role that cannot log in (issue 55, item 3; docs/security.md, "Least privilege in
-- the database"). The login that migrates joins it, so migrations and the login set-up work as before, but no
-- password opens the owner itself, and the API's and the workers' logins are not members of it.
DO $$
BEGIN
  IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'therapy_owner') THEN
    CREATE ROLE therapy_owner NOLOGIN NOBYPASSRLS;
  END IF;
END
$$;

-- USAGE, not MEMBER: from PostgreSQL 16 a CREATEROLE login is made a member of the role it creates with neither SET
-- nor INHERIT, and changing an owner to therapy_owner then fails ("must be able to SET ROLE"); its own grant gives both.
DO $$
BEGIN
  IF NOT pg_has_role(current_user, 'therapy_owner', 'USAGE') THEN
    EXECUTE format('GRANT therapy_owner TO %I', current_user);
  END IF;
END
$$;

-- Hands what the migrating login made in the platform's schemas to therapy_owner: tables (their indexes and the
-- sequences they own follow), free-standing sequences, views, enums and other types, functions, the vector schema.
-- Called at the end of this migration and by the migration runner after every migration it applies
-- (scripts/db/migrations.ts), so tables of later migrations move too. Objects of extensions stay theirs.
CREATE OR REPLACE FUNCTION app_assign_owner() RETURNS void
  LANGUAGE plpgsql
  AS $fn$
DECLARE
  me oid := (SELECT oid FROM pg_roles WHERE rolname = current_user);
  o record;
BEGIN
  GRANT USAGE, CREATE ON SCHEMA public TO therapy_owner;
  IF EXISTS (SELECT FROM pg_namespace WHERE nspname = 'ai_vectors' AND nspowner = me) THEN
    ALTER SCHEMA ai_vectors OWNER TO therapy_owner;
  END IF;
  FOR o IN
    SELECT c.oid, c.relkind
      FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
     WHERE n.nspname IN ('public', 'ai_vectors') AND c.relowner = me
       AND c.relkind IN ('r', 'p', 'v', 'm', 'S', 'f')
       AND NOT EXISTS (SELECT FROM pg_depend d WHERE d.classid = 'pg_class'::regclass AND d.objid = c.oid
                         AND d.deptype IN ('e', 'a', 'i'))
  LOOP
    EXECUTE format(
      'ALTER %s %s OWNER TO therapy_owner',
      CASE o.relkind WHEN 'S' THEN 'SEQUENCE' WHEN 'v' THEN 'VIEW' WHEN 'm' THEN 'MATERIALIZED VIEW'
                     WHEN 'f' THEN 'FOREIGN TABLE' ELSE 'TABLE' END,
      o.oid::regclass
    );
  END LOOP;
  FOR o IN
    SELECT t.oid
      FROM pg_type t JOIN pg_namespace n ON n.oid = t.typnamespace
     WHERE n.nspname IN ('public', 'ai_vectors') AND t.typowner = me AND t.typtype IN ('e', 'd', 'c')
       AND (t.typtype <> 'c' OR EXISTS (SELECT FROM pg_class c WHERE c.oid = t.typrelid AND c.relkind = 'c'))
       AND NOT EXISTS (SELECT FROM pg_depend d WHERE d.classid = 'pg_type'::regclass AND d.objid = t.oid
                         AND d.deptype = 'e')
  LOOP
    EXECUTE format('ALTER TYPE %s OWNER TO therapy_owner', o.oid::regtype);
  END LOOP;
  FOR o IN
    SELECT p.oid
      FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
     WHERE n.nspname IN ('public', 'ai_vectors') AND p.proowner = me
       AND NOT EXISTS (SELECT FROM pg_depend d WHERE d.classid = 'pg_proc'::regclass AND d.objid = p.oid
                         AND d.deptype = 'e')
  LOOP
    EXECUTE format('ALTER ROUTINE %s OWNER TO therapy_owner', o.oid::regprocedure);
  END LOOP;
END
$fn$;

SELECT app_assign_owner();
