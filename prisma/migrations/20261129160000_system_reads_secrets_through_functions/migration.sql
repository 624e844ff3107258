-- The system role reads secrets only through the functions that need them (issue 76, item 5; docs/security.md, "Least
-- privilege in the database"). therapy_system's statements span tenants (the delivery pumps, the token signer, the
-- start-up check), and until now any of them could read every tenant's endpoint secrets with a plain SELECT: a
-- statement gone wrong, a row logged whole or an injected query would carry them. From here the role may not select
-- (or overwrite) a secret column at all; it gets:
--   * an endpoint's secrets only for an endpoint it holds a claim on (a PENDING delivery under a pump's lease):
--     webhook_endpoint_secrets, asked by the pump right after its claim;
--   * a token-signing key's sealed private half by naming its kid: signing_key_private_jwk (the signer, the CLI);
--   * one sample per column and key id for the start-up check of the key-encryption key: sealed_secret_samples.
-- The values stay sealed (infra/secret-box.ts, bound to their row): the key that opens them is never in the database.
-- The functions run as the tables' owner (SECURITY DEFINER, a fixed search_path), and only therapy_system may call them.

CREATE OR REPLACE FUNCTION app_grant_system_role() RETURNS void
  LANGUAGE plpgsql
  AS $fn$
DECLARE
  t record;
  s record;
  allowed text;
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
  -- Secret columns: selected and updated by every other column's name (a column added later is granted at the next
  -- start, which calls this again); the secrets themselves only through the functions below. A new row may still
  -- carry a secret (the signer makes its keys), which reads none.
  FOR s IN
    SELECT * FROM (VALUES
      ('webhook_endpoints', ARRAY['secret', 'previous_secret', 'signing_key', 'previous_signing_key']),
      ('agent_workflows', ARRAY['webhook_secret']),
      ('signing_keys', ARRAY['private_jwk'])
    ) AS v(tbl, secret_columns)
  LOOP
    EXECUTE format('REVOKE SELECT, UPDATE ON %I FROM therapy_system', s.tbl);
    SELECT string_agg(quote_ident(a.attname), ', ' ORDER BY a.attnum) INTO allowed
      FROM pg_attribute a
     WHERE a.attrelid = format('public.%I', s.tbl)::regclass AND a.attnum > 0 AND NOT a.attisdropped
       AND NOT a.attname = ANY (s.secret_columns);
    EXECUTE format('GRANT SELECT (%s), UPDATE (%s) ON %I TO therapy_system', allowed, allowed, s.tbl);
  END LOOP;
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

-- Which secrets an endpoint has: moved by every change of one of them, so a pump keeps the sealed values it was given
-- while this stays, and asks again only when it moves (domain/webhooks/endpoint-secrets.ts).
ALTER TABLE webhook_endpoints ADD COLUMN secrets_version integer NOT NULL DEFAULT 0;

CREATE OR REPLACE FUNCTION webhook_endpoint_secrets_changed() RETURNS trigger
  LANGUAGE plpgsql
  AS $fn$
  BEGIN
    NEW.secrets_version := OLD.secrets_version + 1;
    RETURN NEW;
  END
  $fn$;

CREATE TRIGGER webhook_endpoint_secrets_version
  BEFORE UPDATE OF secret, previous_secret, signing_key, previous_signing_key ON webhook_endpoints
  FOR EACH ROW
  WHEN (OLD.secret IS DISTINCT FROM NEW.secret OR OLD.previous_secret IS DISTINCT FROM NEW.previous_secret
        OR OLD.signing_key IS DISTINCT FROM NEW.signing_key
        OR OLD.previous_signing_key IS DISTINCT FROM NEW.previous_signing_key)
  EXECUTE FUNCTION webhook_endpoint_secrets_changed();

-- The sealed secrets of the endpoints among `endpoint_ids` that have a PENDING delivery under a lease: what a pump
-- signs its claimed attempts with, and nothing of an endpoint no pump is delivering to. A pump asks only for endpoints
-- whose `secrets_version` it has not seen (asking at every claim cost PostgreSQL 0.1 ms of CPU per delivery at 1,000
-- deliveries a second). PL/pgSQL keeps the statement's plan for the connection.
CREATE OR REPLACE FUNCTION webhook_endpoint_secrets(endpoint_ids text[])
  RETURNS TABLE (id text, secrets_version integer, secret text, previous_secret text, signing_key text,
                 previous_signing_key text)
  LANGUAGE plpgsql STABLE SECURITY DEFINER
  SET search_path = public, pg_temp
  AS $fn$
  BEGIN
    RETURN QUERY
      SELECT w.id, w.secrets_version, w.secret, w.previous_secret, w.signing_key, w.previous_signing_key
        FROM webhook_endpoints w
       WHERE w.id = ANY (endpoint_ids)
         AND EXISTS (SELECT FROM webhook_deliveries d
                      WHERE d.endpoint_id = w.id AND d.status = 'PENDING' AND d.dispatch_lease_until IS NOT NULL);
  END
  $fn$;

-- A token-signing key's private half, as stored (a sealed JSON string, or a legacy clear JWK object).
CREATE OR REPLACE FUNCTION signing_key_private_jwk(key_id text) RETURNS jsonb
  LANGUAGE sql STABLE SECURITY DEFINER
  SET search_path = public, pg_temp
  AS $fn$ SELECT private_jwk FROM signing_keys WHERE kid = key_id $fn$;

-- Replaces a signing key's private half if it is still `expected` (its text form): the re-seal's compare and set.
CREATE OR REPLACE FUNCTION signing_key_reseal(key_id text, expected text, replacement jsonb) RETURNS boolean
  LANGUAGE sql VOLATILE SECURITY DEFINER
  SET search_path = public, pg_temp
  AS $fn$
    WITH changed AS (
      UPDATE signing_keys SET private_jwk = replacement WHERE kid = key_id AND private_jwk::text = expected RETURNING 1
    )
    SELECT EXISTS (SELECT FROM changed)
  $fn$;

-- One sealed value per form and key id (`enc:<form>:<key id>:...`) of a secret column, with its row: the start-up
-- check opens each (domain/sealed-secrets-check.ts). Only the secret columns are answered.
CREATE OR REPLACE FUNCTION sealed_secret_samples(table_name text, column_name text)
  RETURNS TABLE (row_id text, value text)
  LANGUAGE plpgsql STABLE SECURITY DEFINER
  SET search_path = public, pg_temp
  AS $fn$
  BEGIN
    IF table_name = 'signing_keys' AND column_name = 'private_jwk' THEN
      RETURN QUERY
        SELECT DISTINCT ON (split_part(k.private_jwk #>> '{}', ':', 2), split_part(k.private_jwk #>> '{}', ':', 3))
               k.kid, k.private_jwk #>> '{}'
          FROM signing_keys k
         WHERE jsonb_typeof(k.private_jwk) = 'string' AND k.private_jwk #>> '{}' LIKE 'enc:v%';
    ELSIF (table_name, column_name) IN (('webhook_endpoints', 'secret'), ('webhook_endpoints', 'previous_secret'),
        ('webhook_endpoints', 'signing_key'), ('webhook_endpoints', 'previous_signing_key'),
        ('agent_workflows', 'webhook_secret')) THEN
      RETURN QUERY EXECUTE format(
        'SELECT DISTINCT ON (split_part(%1$I, '':'', 2), split_part(%1$I, '':'', 3)) id, %1$I
           FROM %2$I WHERE %1$I LIKE ''enc:v%%''',
        column_name, table_name);
    ELSE
      RAISE EXCEPTION 'not a column of sealed secrets: %.%', table_name, column_name USING ERRCODE = '42501';
    END IF;
  END
  $fn$;

REVOKE ALL ON FUNCTION webhook_endpoint_secrets(text[]), signing_key_private_jwk(text),
  signing_key_reseal(text, text, jsonb), sealed_secret_samples(text, text) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION webhook_endpoint_secrets(text[]), signing_key_private_jwk(text),
  signing_key_reseal(text, text, jsonb), sealed_secret_samples(text, text) TO therapy_system;

SELECT app_grant_system_role();
