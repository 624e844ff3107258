-- What one webhook delivery writes (docs/webhooks.md, "What a delivery writes"): 10,000 deliveries through statements
-- of the queue's shape, in the pump's batch sizes: fan-out's INSERT, the claim's lease UPDATE, the record's UPDATE
-- (and, with -v attempt_rows=true, the attempt row every first attempt had before). Prints the WAL records of each
-- step by kind (Heap = row writes, Btree/INSERT_LEAF = index entries) and its WAL bytes.
--
-- SCRATCH DATABASE ONLY: it empties webhook_deliveries, webhook_delivery_attempts, events and webhook_endpoints.
-- Needs a superuser (pg_walinspect, PostgreSQL 15+) and a migrated database, e.g.
--   createdb wh_scratch && DATABASE_URL=postgresql://.../wh_scratch npm run db:migrate
--   psql -d wh_scratch -c 'CREATE EXTENSION IF NOT EXISTS pg_walinspect'
--   psql -q -d wh_scratch -v attempt_rows=false -f bench/webhook-writes.sql
-- A checkpoint during the run can recycle the WAL it reads ("requested WAL segment ... has already been removed"):
-- run it again.
\set ON_ERROR_STOP 1
SET client_min_messages = warning;
TRUNCATE webhook_deliveries, webhook_delivery_attempts, events, webhook_endpoints CASCADE;
INSERT INTO tenants (id, name) VALUES ('ten_m', 'webhook writes') ON CONFLICT DO NOTHING;
INSERT INTO webhook_endpoints (id, tenant_id, url, event_types, signing_scheme, secret, updated_at)
  VALUES ('whe_m', 'ten_m', 'http://x', ARRAY['*'], 'V1', 's', now());
-- Existing history, so the table is not empty (its pages are full: fillfactor applies to new pages only).
INSERT INTO events (id, tenant_id, type, data, created_at, fanned_out_at)
  SELECT 'evt_' || g, 'ten_m', 'child.registered', '{}', now(), now() FROM generate_series(1, 20000) g;

SELECT pg_current_wal_flush_lsn() AS l0 \gset
-- fan-out: 10,000 deliveries in batches of 200
DO $$ BEGIN FOR b IN 0..49 LOOP
  INSERT INTO webhook_deliveries (id, tenant_id, event_id, endpoint_id, event_type, kind, next_attempt_at, created_at)
  SELECT 'dlv_' || lpad(g::text, 6, '0'), 'ten_m', 'evt_' || g, 'whe_m', 'child.registered', 'EVENT', now(), now()
  FROM generate_series(b * 200 + 1, b * 200 + 200) g;
END LOOP; END $$;
SELECT pg_current_wal_flush_lsn() AS l1 \gset
-- claim: batches of 64
DO $$ BEGIN FOR b IN 0..156 LOOP
  UPDATE webhook_deliveries SET dispatch_lease_until = now() + interval '60 s'
  WHERE id IN (SELECT id FROM webhook_deliveries WHERE status = 'PENDING' AND dispatch_lease_until IS NULL
               AND next_attempt_at IS NOT NULL ORDER BY next_attempt_at, id LIMIT 64);
END LOOP; END $$;
SELECT pg_current_wal_flush_lsn() AS l2 \gset
-- record: every attempt a first-attempt success
SELECT set_config('m.attempt_rows', :'attempt_rows', false);
DO $$ DECLARE with_rows boolean := current_setting('m.attempt_rows')::boolean; BEGIN FOR b IN 0..156 LOOP
  WITH r AS (SELECT id FROM webhook_deliveries WHERE status = 'PENDING' ORDER BY id LIMIT 64),
  d AS (UPDATE webhook_deliveries w SET status = 'SUCCEEDED', attempt_count = 1, last_status_code = 200,
          next_attempt_at = NULL, first_attempt_at = now(), completed_at = now(), dispatch_lease_until = NULL,
          first_attempt_latency_ms = CASE WHEN with_rows THEN NULL ELSE 12 END
        FROM r WHERE w.id = r.id RETURNING w.id, w.tenant_id)
  INSERT INTO webhook_delivery_attempts (id, tenant_id, delivery_id, number, attempted_at, status_code, latency_ms, succeeded)
  SELECT 'att_' || d.id, d.tenant_id, d.id, 1, now(), 200, 12, true FROM d WHERE with_rows;
END LOOP; END $$;
SELECT pg_current_wal_flush_lsn() AS l3 \gset

\echo fan-out
SELECT "resource_manager/record_type" AS rec, count FROM pg_get_wal_stats(:'l0', :'l1', true) WHERE count > 0 AND "resource_manager/record_type" ~ '^(Heap|Btree)' ORDER BY 1;
\echo claim
SELECT "resource_manager/record_type" AS rec, count FROM pg_get_wal_stats(:'l1', :'l2', true) WHERE count > 0 AND "resource_manager/record_type" ~ '^(Heap|Btree)' ORDER BY 1;
\echo record
SELECT "resource_manager/record_type" AS rec, count FROM pg_get_wal_stats(:'l2', :'l3', true) WHERE count > 0 AND "resource_manager/record_type" ~ '^(Heap|Btree)' ORDER BY 1;
SELECT pg_wal_lsn_diff(:'l1', :'l0') AS fanout_bytes, pg_wal_lsn_diff(:'l2', :'l1') AS claim_bytes, pg_wal_lsn_diff(:'l3', :'l2') AS record_bytes;
SELECT (SELECT count(*) FROM webhook_deliveries WHERE status='SUCCEEDED') AS succeeded;
