-- PostgreSQL 16 and later make a login with CREATEROLE a member of each role it creates with neither SET nor INHERIT
-- (the bootstrap superuser's grant, with ADMIN OPTION). The row-level-security migration checked membership only, so
-- on 16 the migrating login could not become therapy_app ("permission denied to set role"), which its own statements
-- in a tenant's unit of work do. Its own grant gives both; on 15, and for a superuser, it already has them.
DO $$
DECLARE
  r text;
BEGIN
  FOREACH r IN ARRAY ARRAY['therapy_app', 'therapy_owner'] LOOP
    IF NOT pg_has_role(current_user, r, 'USAGE') THEN
      EXECUTE format('GRANT %I TO %I', r, current_user);
    END IF;
  END LOOP;
END
$$;
