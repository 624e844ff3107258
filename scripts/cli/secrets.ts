/**
 * @module `secrets` commands: the secrets kept sealed at rest (domain/sealed-secrets.ts; docs/security.md, "Secrets at
 * rest"). `status` counts the stored values by the key that sealed them; `reseal` seals under the current key
 * (SECRETS_ENCRYPTION_KEYS' first) every value that is not: after an upgrade, the values written in clear before
 * sealing; after a rotation, the values of the older keys, which can then leave the ring. Every value it seals is
 * bound to its row; `allBound` says the pass left no clear and no unbound value, after which processes refuse them.
 */
import { resealSecrets, sealedSecretsStatus } from '../../domain/sealed-secrets.ts'
import { printJson, secretBoxOf, withDatabase, type CliContext } from './database.ts'
import { SECRETS_USAGE, UsageError } from './usage.ts'

export async function secrets(command: string | undefined, _args: string[], cli: CliContext) {
  if (command !== 'status' && command !== 'reseal') throw new UsageError(SECRETS_USAGE)
  // Read before the database opens: a malformed or (in production) missing key ring stops here.
  const box = secretBoxOf(cli)
  await withDatabase(cli, async (db) => {
    if (command === 'status') {
      printJson(cli, { currentKeyId: box.currentKeyId, columns: await sealedSecretsStatus(db, box) })
    } else {
      printJson(cli, { currentKeyId: box.currentKeyId, ...(await resealSecrets(db, box)) })
    }
  })
}
