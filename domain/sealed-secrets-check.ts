/**
 * @module The start-up check of the key-encryption key (issue 76, item 4): before an API reports ready or a worker
 * polls, it opens one stored value of every column that holds sealed secrets, for every key id found there. A key
 * missing from SECRETS_ENCRYPTION_KEYS, or a different key under the same id, is then a clear message at start (the
 * API's readiness `/health` is 503 and names it; the worker refuses to start), not a 500 from `/oauth/token` and
 * deliveries waiting for ever. One query per column, one sample per key id: what the check costs does not grow with
 * the number of tenants. The values are opened in memory and dropped; nothing of them is logged.
 */
import type { Db } from '../infra/db.ts'
import type { SecretBinding, SecretBox } from '../infra/secret-box.ts'
import { signingKeyAt, TENANT_SECRET_COLUMNS } from './sealed-secrets.ts'

/** What the check found: nothing when every sample opens. */
export interface SealedSecretsCheck {
  /** Samples opened, one per column and key id. */
  opened: number
  /**
   * Whether a re-seal recorded that every stored secret is sealed and bound: the box then refuses clear and unbound
   * values from now on (infra/secret-box.ts).
   */
  allBound: boolean
  /** One line per column and key id that does not open, naming both and what to do. */
  problems: string[]
}

interface Sample {
  value: string
  place: SecretBinding
}

/**
 * One sealed value per form and key id (`enc:<form>:<key id>:…`: the second and third fields) of a secret column, with
 * its row, which a bound value needs to open. Through `sealed_secret_samples`: the platform's login may not select a
 * secret column (issue 76, item 5).
 */
async function samplesOf(db: Db, table: string, column: string): Promise<Sample[]> {
  const rows = await db.$queryRaw<Array<{ row_id: string; value: string }>>`
    SELECT row_id, value FROM sealed_secret_samples(${table}, ${column})`
  return rows.map((row) => ({
    value: row.value,
    place: table === 'signing_keys' ? signingKeyAt(row.row_id) : { table, column, rowId: row.row_id },
  }))
}

/**
 * Opens one sealed value of each column per form and key id with `secrets`, and, when a re-seal recorded that every
 * value is sealed and bound, tells `secrets` to refuse clear and unbound values from now on.
 */
export async function checkSealedSecrets(db: Db, secrets: SecretBox): Promise<SealedSecretsCheck> {
  // One query after the other, on one connection: at start, beside every other process starting, not a burst.
  const columns = [{ name: 'signing_keys.private_jwk', samples: await samplesOf(db, 'signing_keys', 'private_jwk') }]
  for (const { table, column } of TENANT_SECRET_COLUMNS)
    columns.push({ name: `${table}.${column}`, samples: await samplesOf(db, table, column) })
  const state = await db.sealedSecretsState.findUnique({ where: { id: true } })
  const check: SealedSecretsCheck = { opened: 0, problems: [], allBound: Boolean(state?.allBoundAt) }
  for (const { name, samples } of columns) {
    for (const sample of samples) {
      try {
        secrets.open(sample.value, sample.place)
        check.opened++
      } catch (error) {
        // The box's messages name the key id and never quote the value.
        check.problems.push(`${name}: ${(error as Error).message}`)
      }
    }
  }
  if (check.allBound) secrets.refuseUnbound()
  return check
}

/** The message an operator reads when the check fails (the API's readiness, the worker's refusal to start). */
export const sealedSecretsProblem = (check: SealedSecretsCheck) =>
  `stored secrets do not open with SECRETS_ENCRYPTION_KEYS (a key is missing or differs; docs/security.md, ` +
  `"Secrets at rest"): ${check.problems.join('; ')}`
