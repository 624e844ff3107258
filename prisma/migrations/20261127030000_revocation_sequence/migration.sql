-- Revocations propagated by sequence, and refresh-token reuse ending the family's access tokens (docs/security.md,
-- issue 55).
--
-- Every API instance keeps the revoked access tokens in memory and reads the rows it has not seen yet every second
-- (domain/auth/revocation-list.ts). It used to read `revoked_at > <newest revoked_at seen>`, but `revoked_at` is the
-- revoking transaction's start (or another instance's clock): a row committed after a newer one was never read. A
-- sequence orders the rows by when they were inserted, on one clock; the list re-reads the values it has not seen
-- below its high-water mark for a grace time, since sequence values can commit out of order too. An identity column:
-- it needs no privilege on its sequence (a least-privileged role inserts with INSERT alone), and GENERATED ALWAYS
-- refuses a value written by hand, which could run behind the lists' high-water marks.
ALTER TABLE "revoked_access_tokens" ADD COLUMN "seq" BIGINT NOT NULL GENERATED ALWAYS AS IDENTITY;
CREATE UNIQUE INDEX "revoked_access_tokens_seq_key" ON "revoked_access_tokens" ("seq");

-- The access token issued with each refresh token (its jti and expiry): a reused refresh token, or one revoked through
-- RFC 7009, revokes the unexpired access tokens of its whole family. Rows written before this migration have none;
-- their access tokens expire within ACCESS_TOKEN_TTL_SECONDS.
ALTER TABLE "refresh_tokens" ADD COLUMN "access_token_id" TEXT;
ALTER TABLE "refresh_tokens" ADD COLUMN "access_token_expires_at" TIMESTAMPTZ(3);
