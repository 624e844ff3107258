-- Credentials live while their grantor does (docs/security.md, "Credentials and their grantors", issue 55).
--
-- A webhook endpoint records who made it: the client, user or API key whose request created it (or re-enabled it).
-- Rows made before this migration have none, and keep working as before.
ALTER TABLE "webhook_endpoints" ADD COLUMN "created_by" TEXT;

-- Whether a credential's grantor still grants it the scope `needed`: the API key chain that made it (each key made by
-- the one before) neither revoked nor expired, and at its root a client not revoked that holds the scope, a user not
-- disabled whose role is one of `roles` (the roles whose scopes include it: domain/auth/roles.ts), or the platform's
-- operator. An API key's own check at every use (domain/auth/api-key-service.ts) walks the same chain. One function so
-- that the webhook fan-out and claim, which run as the login role across tenants, and an agent run's first step ask
-- the same question; a grantor of no kind known, or a chain longer than 8, does not grant.
CREATE FUNCTION credential_grant_holds(tenant TEXT, grantor TEXT, as_of TIMESTAMPTZ, needed TEXT, roles TEXT[])
RETURNS BOOLEAN LANGUAGE sql STABLE AS $$
  WITH RECURSIVE chain AS (
    SELECT grantor AS link, 0 AS depth, true AS live
    UNION ALL
    SELECT k.created_by, c.depth + 1, k.revoked_at IS NULL AND (k.expires_at IS NULL OR k.expires_at > as_of)
    FROM chain c JOIN api_keys k ON k.id = c.link AND k.tenant_id = tenant
    WHERE c.depth < 8 AND c.live)
  SELECT CASE
    WHEN grantor IS NULL THEN true
    WHEN bool_and(live) IS NOT TRUE THEN false
    ELSE coalesce((
      SELECT CASE
        WHEN root.link = 'operator' THEN true
        WHEN root.link LIKE 'cli\_%' THEN EXISTS (
          SELECT 1 FROM api_clients cl
          WHERE cl.id = root.link AND cl.tenant_id = tenant AND cl.revoked_at IS NULL AND needed = ANY (cl.scopes))
        WHEN root.link LIKE 'usr\_%' THEN EXISTS (
          SELECT 1 FROM platform_users u
          WHERE u.id = root.link AND u.tenant_id = tenant AND u.disabled_at IS NULL AND u.role::text = ANY (roles))
        ELSE false
      END
      FROM (SELECT link FROM chain ORDER BY depth DESC LIMIT 1) root
      WHERE NOT EXISTS (SELECT 1 FROM api_keys k WHERE k.id = root.link)), false)
  END
  FROM chain
$$;
