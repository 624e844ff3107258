-- Whether every stored secret is sealed and bound to its row (issue 76): `npm run cli -- secrets reseal` records it
-- once a pass leaves no clear and no unbound value; the API and the worker read it at start and from then on refuse a
-- clear or unbound value (one written into the database afterwards is an attack, not an upgrade). Platform data, one
-- row, no tenant: no row-level security.
CREATE TABLE "sealed_secrets_state" (
    "id" BOOLEAN NOT NULL DEFAULT true,
    "all_bound_at" TIMESTAMPTZ(3),

    CONSTRAINT "sealed_secrets_state_pkey" PRIMARY KEY ("id"),
    CONSTRAINT "sealed_secrets_state_one_row" CHECK ("id")
);
