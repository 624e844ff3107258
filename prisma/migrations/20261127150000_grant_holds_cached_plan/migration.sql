-- credential_grant_holds (migration 20261127040000) in PL/pgSQL, unchanged in what it answers. As a SQL function with a
-- recursive CTE it cannot be inlined, and PostgreSQL planned its query again for every statement that called it: the
-- webhook pumps' claim and fan-out, hundreds of times a second under load, where that planning cost about 0.7 ms each
-- time (docs/benchmarks.md, "Webhooks: where planning goes", issue 56). A PL/pgSQL function keeps its query's plan for
-- the connection's life.
CREATE OR REPLACE FUNCTION credential_grant_holds(tenant TEXT, grantor TEXT, as_of TIMESTAMPTZ, needed TEXT, roles TEXT[])
RETURNS BOOLEAN LANGUAGE plpgsql STABLE AS $$
BEGIN
  RETURN (
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
  );
END
$$;
