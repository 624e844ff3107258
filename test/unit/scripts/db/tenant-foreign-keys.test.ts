import { describe, expect, it } from 'vitest'

import { isEmptyMigration, keepTenantForeignKeys } from '../../../../scripts/db/tenant-foreign-keys.ts'

// What the schema engine wrote for the tenant foreign keys (single-column relations in prisma/schema.prisma), in its
// own layout: each statement under its comment, a blank line after it.
const undoing = [
  '-- DropForeignKey',
  'ALTER TABLE "appointments" DROP CONSTRAINT "appointments_provider_id_tenant_fkey";',
  '',
  '-- DropIndex',
  'DROP INDEX "providers_tenant_id_id_key";',
  '',
  '-- AddForeignKey',
  'ALTER TABLE "appointments" ADD CONSTRAINT "appointments_provider_id_fkey" FOREIGN KEY ("provider_id") ' +
    'REFERENCES "providers"("id") ON DELETE RESTRICT ON UPDATE CASCADE;',
  '',
].join('\n')

const newTable = [
  '-- CreateTable',
  'CREATE TABLE "rooms" (',
  '    "id" TEXT NOT NULL,',
  '    "tenant_id" TEXT NOT NULL,',
  '',
  '    CONSTRAINT "rooms_pkey" PRIMARY KEY ("id")',
  ');',
  '',
  '-- AddForeignKey',
  'ALTER TABLE "rooms" ADD CONSTRAINT "rooms_location_id_fkey" FOREIGN KEY ("location_id") ' +
    'REFERENCES "locations"("id") ON DELETE RESTRICT ON UPDATE CASCADE;',
  '',
].join('\n')

describe("db:migrate:dev's tenant foreign keys", () => {
  it('takes out the statements that would undo them, leaving an empty migration', () => {
    const kept = keepTenantForeignKeys(undoing)
    expect(kept).not.toContain('tenant')
    expect(kept).not.toContain('appointments_provider_id_fkey')
    expect(isEmptyMigration(kept)).toBe(true)
  })

  it('keeps everything else as the engine wrote it, a new single-column key included', () => {
    expect(keepTenantForeignKeys(newTable)).toBe(newTable)
    expect(keepTenantForeignKeys(`${undoing}\n${newTable}`)).toBe(newTable)
    expect(isEmptyMigration(newTable)).toBe(false)
  })
})
