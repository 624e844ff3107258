-- A note is signed only by a credential linked to its provider, or by an administrator on the record (issue 55, item 5;
-- docs/care-records.md, "Who may sign"). Before, the caller attested the provider it signed for, so any credential
-- holding the `sessions` scope could sign any provider's note.
--
-- A platform user (PATCH /v1/users/{id}) and an API key (POST /v1/api-keys) may be linked to one provider of their
-- tenant. The service checks the provider is the tenant's own when the link is set; the foreign key keeps a link from
-- naming a provider that does not exist. Providers have no unique (tenant_id, id) for a composite key to reference:
-- the tenant is the application's check, as for every other single-column reference (issue 55, item 3).
-- Plain nullable columns on tables that already have their row-level security: no new policy.

-- AlterTable
ALTER TABLE "platform_users" ADD COLUMN "provider_id" TEXT;
ALTER TABLE "api_keys" ADD COLUMN "provider_id" TEXT;

-- In what capacity a note was signed: PROVIDER (by a credential linked to the session's provider) or ADMINISTRATOR
-- (by an ADMIN or OWNER user, on the record, for the provider). Null on drafts, and on notes signed before this
-- migration, whose signer attested the provider: the lock trigger forbids filling it in on a signed row, rightly.
ALTER TABLE "session_notes" ADD COLUMN "signed_as" TEXT;
ALTER TABLE "session_notes" ADD CONSTRAINT "session_notes_signed_as_check" CHECK (
  signed_as IS NULL OR (status = 'SIGNED' AND signed_as IN ('PROVIDER', 'ADMINISTRATOR'))
);

-- AddForeignKey
ALTER TABLE "platform_users" ADD CONSTRAINT "platform_users_provider_id_fkey" FOREIGN KEY ("provider_id") REFERENCES "providers"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "api_keys" ADD CONSTRAINT "api_keys_provider_id_fkey" FOREIGN KEY ("provider_id") REFERENCES "providers"("id") ON DELETE SET NULL ON UPDATE CASCADE;
