/**
 * @module The start-up check of the key-encryption key (issue 76, item 4): before an API reports ready or a worker
 * polls, it opens one stored value of every column that holds sealed secrets, for every key id found there. A key
 * missing from SECRETS_ENCRYPTION_KEYS, or a different key under the same id, is then a clear message at start (the
 * API's readiness `/health` is 503 and names it; the worker refuses to start), not a 500 from `/oauth/token` and
 * deliveries waiting for ever. One query per column, one sample per key id: what the check costs does not grow with
 * the number of tenants. The values are opened in memory and dropped; nothing of them is logged.
 */
import { Prisma } from '../generated/prisma/client.ts'
import type { Db } from '../infra/db.ts'
import type { SecretBox } from '../infra/secret-box.ts'
import { TENANT_SECRET_COLUMNS } from './sealed-secrets.ts'

/** What the check found: nothing when every sample opens. */
export interface SealedSecretsCheck {
  /** Samples opened, one per column and key id. */
  opened: number
  /** One line per column and key id that does not open, naming both and what to do. */
  problems: string[]
}

/** One sealed value per key id of a text column (the key id is the third `:`-separated field). */
async function samplesOf(db: Db, table: string, column: string): Promise<string[]> {
  const rows = await db.$queryRaw<Array<{ value: string }>>`
    SELECT DISTINCT ON (split_part(${Prisma.raw(column)}, ':', 3)) ${Prisma.raw(column)} AS value
    FROM ${Prisma.raw(table)} WHERE ${Prisma.raw(column)} LIKE 'enc:v1:%'`
  return rows.map((row) => row.value)
}

/** The platform's token-signing keys are a JSON string when sealed. */
async function signingKeySamples(db: Db): Promise<string[]> {
  const rows = await db.$queryRaw<Array<{ value: string }>>`
    SELECT DISTINCT ON (split_part(private_jwk #>> '{}', ':', 3)) private_jwk #>> '{}' AS value
    FROM signing_keys WHERE jsonb_typeof(private_jwk) = 'string' AND private_jwk #>> '{}' LIKE 'enc:v1:%'`
  return rows.map((row) => row.value)
}

/** Opens one sealed value of each column per key id with `secrets`. */
export async function checkSealedSecrets(db: Db, secrets: SecretBox): Promise<SealedSecretsCheck> {
  const columns = [
    { name: 'signing_keys.private_jwk', samples: await signingKeySamples(db) },
    ...(await Promise.all(
      TENANT_SECRET_COLUMNS.map(async ({ table, column }) => ({
        name: `${table}.${column}`,
        samples: await samplesOf(db, table, column),
      }))
    )),
  ]
  const check: SealedSecretsCheck = { opened: 0, problems: [] }
  for (const { name, samples } of columns) {
    for (const sample of samples) {
      try {
        secrets.open(sample)
        check.opened++
      } catch (error) {
        // The box's messages name the key id and never quote the value.
        check.problems.push(`${name}: ${(error as Error).message}`)
      }
    }
  }
  return check
}

/** The message an operator reads when the check fails (the API's readiness, the worker's refusal to start). */
export const sealedSecretsProblem = (check: SealedSecretsCheck) =>
  `stored secrets do not open with SECRETS_ENCRYPTION_KEYS (a key is missing or differs; docs/security.md, ` +
  `"Secrets at rest"): ${check.problems.join('; ')}`
