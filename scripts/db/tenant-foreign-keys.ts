/**
 * @module The database's tenant foreign keys, kept by `db:migrate:dev`. Every foreign key between two tables that carry
 * `tenant_id` includes the tenant, `FOREIGN KEY (tenant_id, col) REFERENCES t (tenant_id, id)`, named
 * `<table>_<col>_tenant_fkey`, against a `UNIQUE (tenant_id, id)` named `<table>_tenant_id_id_key` (migration
 * `tenant_composite_foreign_keys`, issue 55). `prisma/schema.prisma` keeps its single-column relations, which are what
 * the client needs, so the schema engine sees those keys and uniques as drift and would write a migration that undoes
 * them: drop each, add back the single-column key. This takes those statements out of what it writes.
 *
 * A new relation between tenant tables still comes out single-column: write it composite by hand (the catalogue check
 * in test/integration/tenant-isolation.int.test.ts fails on one that is not). A change of an existing relation's
 * `onDelete` is lost with the pair it would have been written as: write it by hand too.
 */

const DROPPED_TENANT_KEY = /^ALTER TABLE "[^"]+" DROP CONSTRAINT "([^"]+)_tenant_fkey";$/m
const DROPPED_TENANT_UNIQUE = /^DROP INDEX "[^"]+_tenant_id_id_key";$/m
const ADDED_KEY = /^ALTER TABLE "[^"]+" ADD CONSTRAINT "([^"]+)_fkey" FOREIGN KEY/m

/**
 * The engine's migration script without the statements that would undo the tenant foreign keys.
 * @param script - what the schema engine's `createMigration` wrote
 * @returns the script without them: empty (or comments only) when nothing else was in it
 */
export function keepTenantForeignKeys(script: string): string {
  // Split at blank lines, which end each statement (a CREATE TABLE has one inside too: its pieces are kept in order).
  const pieces = script.split(/\n{2,}/)
  // `appointments_provider_id` for `appointments_provider_id_tenant_fkey`: the single-column key it replaced is
  // `appointments_provider_id_fkey`, which the engine adds back in the same script.
  const replaced = new Set(pieces.map((p) => DROPPED_TENANT_KEY.exec(p)?.[1]).filter((k) => k !== undefined))
  const kept = pieces.filter((piece) => {
    if (DROPPED_TENANT_KEY.test(piece) || DROPPED_TENANT_UNIQUE.test(piece)) return false
    const added = ADDED_KEY.exec(piece)?.[1]
    return added === undefined || !replaced.has(added)
  })
  return kept.length === pieces.length ? script : `${kept.join('\n\n').trimEnd()}\n`
}

/**
 * Whether a script does nothing: blank, or comments only.
 * @param script - a migration script
 */
export function isEmptyMigration(script: string): boolean {
  return script.replace(/^[ \t]*--.*$/gm, '').trim() === ''
}
