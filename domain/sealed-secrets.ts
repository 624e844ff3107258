/**
 * @module The secrets the database keeps sealed (infra/secret-box.ts), column by column, and the operator's two
 * passes over them (`npm run cli -- secrets status | reseal`; docs/security.md, "Secrets at rest"):
 *
 * - `status` counts each column's values by the key that sealed them (`clear` for a value written before sealing), so
 *   an operator sees when no value needs an old key any more and that key can leave SECRETS_ENCRYPTION_KEYS;
 * - `reseal` seals every value not sealed under the ring's current key: legacy clear values after an upgrade, and
 *   values of older keys after a rotation. Each value is replaced only if it is still the one read (compare and set),
 *   so a rotation made by the API meanwhile is never overwritten; the pass can run any time, as often as wanted.
 *
 * Tenant tables are read and written in each tenant's unit of work (row-level security applies, as to the API).
 */
import { Prisma } from '../generated/prisma/client.ts'
import type { Db, Queryable } from '../infra/db.ts'
import type { SecretBinding, SecretBox } from '../infra/secret-box.ts'
import { runInUnitOfWork } from '../infra/unit-of-work.ts'

/** A text column of a tenant table that holds sealed secrets. */
export interface TenantColumn {
  table: 'webhook_endpoints' | 'agent_workflows'
  column: 'secret' | 'previous_secret' | 'signing_key' | 'previous_signing_key' | 'webhook_secret'
}

/** A webhook endpoint's secret column, as a sealed value's place (infra/secret-box.ts binds each value to it). */
export const endpointSecretAt = (
  rowId: string,
  column: 'secret' | 'previous_secret' | 'signing_key' | 'previous_signing_key'
): SecretBinding => ({ table: 'webhook_endpoints', column, rowId })

/** An agent workflow's webhook secret, as a sealed value's place. */
export const agentSecretAt = (rowId: string): SecretBinding => ({
  table: 'agent_workflows',
  column: 'webhook_secret',
  rowId,
})

/** A token-signing key's private half, as a sealed value's place. */
export const signingKeyAt = (kid: string): SecretBinding => ({
  table: 'signing_keys',
  column: 'private_jwk',
  rowId: kid,
})

/** Every tenant column that holds a secret, sealed; `signing_keys.private_jwk` (platform-wide) is handled apart. */
export const TENANT_SECRET_COLUMNS: readonly TenantColumn[] = [
  { table: 'webhook_endpoints', column: 'secret' },
  { table: 'webhook_endpoints', column: 'previous_secret' },
  { table: 'webhook_endpoints', column: 'signing_key' },
  { table: 'webhook_endpoints', column: 'previous_signing_key' },
  { table: 'agent_workflows', column: 'webhook_secret' },
]

/** The label of a value's state: the key id that sealed it (`<id> unbound` for the old form), or `clear`. */
const stateOf = (secrets: SecretBox, stored: string) => {
  const keyId = secrets.keyIdOf(stored)
  return keyId === undefined ? 'clear' : secrets.isBound(stored) ? keyId : `${keyId} unbound`
}

/** Whether a value needs nothing from a re-seal: sealed under the current key and bound to its place. */
const current = (secrets: SecretBox, stored: string) =>
  secrets.keyIdOf(stored) === secrets.currentKeyId && secrets.isBound(stored)

/** Counts of values by state, per `<table>.<column>`. */
export type SecretsStatus = Record<string, Record<string, number>>

/** What a reseal did, per `<table>.<column>`: values sealed anew, and values changed by someone else meanwhile. */
export type ResealReport = Record<string, { resealed: number; skipped: number }>

/** Told of every stored value: its column (`<table>.<column>`) and its state (key id, or `clear`). */
type Visit = (name: string, state: string) => void

async function tenantIds(db: Db): Promise<string[]> {
  const rows = await db.tenant.findMany({ select: { id: true }, orderBy: { id: 'asc' } })
  return rows.map((r) => r.id)
}

/** Visits one tenant's values of one column, resealing those not under the current key when asked. */
async function visitTenantColumn(
  tx: Queryable,
  tenantId: string,
  { table, column }: TenantColumn,
  secrets: SecretBox,
  report: ResealReport[string] | undefined,
  visit: Visit
) {
  const name = `${table}.${column}`
  const rows = await tx.$queryRaw<Array<{ id: string; value: string }>>`
    SELECT id, ${Prisma.raw(column)} AS value FROM ${Prisma.raw(table)}
    WHERE tenant_id = ${tenantId} AND ${Prisma.raw(column)} IS NOT NULL`
  for (const row of rows) {
    visit(name, stateOf(secrets, row.value))
    if (!report || current(secrets, row.value)) continue
    const place = { table, column, rowId: row.id }
    const sealed = secrets.seal(secrets.open(row.value, place), place)
    const changed = await tx.$executeRaw`
      UPDATE ${Prisma.raw(table)} SET ${Prisma.raw(column)} = ${sealed}
      WHERE id = ${row.id} AND ${Prisma.raw(column)} = ${row.value}`
    if (changed === 1) report.resealed++
    else report.skipped++
  }
}

/** The platform's token-signing keys: a sealed JSON string, or a legacy clear JWK object. */
async function visitSigningKeys(db: Db, secrets: SecretBox, report: ResealReport[string] | undefined, visit: Visit) {
  const name = 'signing_keys.private_jwk'
  // Through the functions the platform's login has for them: it may not select the column (issue 76, item 5).
  const rows = await db.$queryRaw<Array<{ kid: string; value: unknown; text: string }>>`
    SELECT kid, signing_key_private_jwk(kid) AS value, signing_key_private_jwk(kid)::text AS text FROM signing_keys`
  for (const row of rows) {
    const stored = typeof row.value === 'string' ? row.value : undefined
    visit(name, stored === undefined ? 'clear' : stateOf(secrets, stored))
    if (!report || (stored !== undefined && current(secrets, stored))) continue
    const place = signingKeyAt(row.kid)
    const plain = stored === undefined ? JSON.stringify(row.value) : secrets.open(stored, place)
    const [{ changed }] = await db.$queryRaw<[{ changed: boolean }]>`
      SELECT signing_key_reseal(${row.kid}, ${row.text}, to_jsonb(${secrets.seal(plain, place)}::text)) AS changed`
    if (changed) report.resealed++
    else report.skipped++
  }
}

async function visitAll(db: Db, secrets: SecretBox, visit: Visit, report?: ResealReport) {
  const entry = (name: string) => (report ? (report[name] ??= { resealed: 0, skipped: 0 }) : undefined)
  await visitSigningKeys(db, secrets, entry('signing_keys.private_jwk'), visit)
  for (const tenantId of await tenantIds(db)) {
    await runInUnitOfWork(db, tenantId, async ({ tx }) => {
      for (const column of TENANT_SECRET_COLUMNS) {
        await visitTenantColumn(tx, tenantId, column, secrets, entry(`${column.table}.${column.column}`), visit)
      }
    })
  }
}

/**
 * Counts the stored secrets by the key that sealed them.
 * @returns per column, the number of values under each key id, and `clear` for values not sealed
 */
export async function sealedSecretsStatus(db: Db, secrets: SecretBox): Promise<SecretsStatus> {
  const status: SecretsStatus = {}
  await visitAll(db, secrets, (name, state) => {
    const counts = (status[name] ??= {})
    counts[state] = (counts[state] ?? 0) + 1
  })
  return status
}

/**
 * Seals every stored secret not sealed under the current key and bound to its row (legacy clear values, unbound
 * values, values of older keys). When the pass leaves no clear and no unbound value anywhere, it records so
 * (`sealed_secrets_state`): processes started from then on refuse clear and unbound values.
 * @returns per column what was re-sealed, and whether every value is now sealed and bound
 * @throws Error when a value is sealed under a key no longer in the ring (it stays as it is; nothing is lost)
 */
export async function resealSecrets(db: Db, secrets: SecretBox): Promise<{ columns: ResealReport; allBound: boolean }> {
  const report: ResealReport = {}
  await visitAll(db, secrets, () => undefined, report)
  // Looked at again: a value written meanwhile by an older process, or skipped as changed, keeps the record unset.
  let legacy = 0
  await visitAll(db, secrets, (_name, state) => {
    if (state === 'clear' || state.endsWith(' unbound')) legacy++
  })
  if (legacy === 0) {
    await db.sealedSecretsState.upsert({
      where: { id: true },
      create: { id: true, allBoundAt: new Date() },
      update: { allBoundAt: new Date() },
    })
  }
  return { columns: report, allBound: legacy === 0 }
}
