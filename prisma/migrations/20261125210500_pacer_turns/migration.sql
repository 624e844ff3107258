-- The workflow-view pacer's turns, shared by every API instance (infra/shared-pacer-turns.ts): per key (a tenant),
-- the theoretical arrival time of its next call at the steady rate, in epoch milliseconds of the database's clock.
-- Platform data like rate_limits: written by the login role outside any tenant transaction, no row-level security.
CREATE TABLE "pacer_turns" (
    "key" VARCHAR(255) NOT NULL,
    "tat" DOUBLE PRECISION NOT NULL,

    CONSTRAINT "pacer_turns_pkey" PRIMARY KEY ("key")
);
