/**
 * @module Access-token signing keys. Kept in PostgreSQL so every API instance signs and verifies with the same
 * keys and tokens survive restarts; each key is published in the JWKS until tokens it signed can no longer be valid.
 * The private JWK is stored sealed (infra/secret-box.ts: a JSON string `enc:v1:...` in `private_jwk`); a JWK object
 * there is a key written before sealing, used as it is until `npm run cli -- secrets reseal` seals it. The platform's
 * login may not select the private half (issue 76, item 5): the signer asks `signing_key_private_jwk` for the active
 * key's, once per process and key.
 */
import { exportJWK, generateKeyPair, importJWK, type CryptoKey, type JWK } from 'jose'
import type { Clock } from '../../infra/clock.ts'
import type { Db, Queryable } from '../../infra/db.ts'
import type { SecretBox } from '../../infra/secret-box.ts'
import { newId } from '../ids.ts'
import { signingKeyAt } from '../sealed-secrets.ts'

export const SIGNING_ALGORITHM = 'ES256'
const CACHE_TTL_MS = 60_000

/** The key new tokens are signed with. */
export interface ActiveSigningKey {
  kid: string
  privateKey: CryptoKey
}

export interface SigningKeys {
  /** The newest unretired key, created on first use. */
  active(): Promise<ActiveSigningKey>
  /** The public key for a `kid`, reloading once from the database when the kid is unknown (another instance rotated). */
  publicKey(kid: string): Promise<CryptoKey | undefined>
  /** The JSON Web Key Set to publish at `/.well-known/jwks.json`. */
  jwks(): Promise<{ keys: JWK[] }>
  /** Creates a new active key and retires the previous one (still published until `publishFor` has passed). */
  rotate(): Promise<string>
}

interface LoadedKey {
  kid: string
  publicJwk: JWK
  createdAt: Date
  retiredAt: Date | null
}

/** The stored form of a private JWK: sealed, as a JSON string. */
const sealPrivateJwk = (secrets: SecretBox, kid: string, jwk: JWK): string =>
  secrets.seal(JSON.stringify(jwk), signingKeyAt(kid))

/** A stored private JWK opened: a sealed string, or a legacy clear JWK object. */
const openPrivateJwk = (secrets: SecretBox, kid: string, stored: unknown): JWK =>
  typeof stored === 'string' ? (JSON.parse(secrets.open(stored, signingKeyAt(kid))) as JWK) : (stored as JWK)

/** A key's private half as stored, through the one function that reads it for the platform's login. */
async function storedPrivateJwk(db: Db, kid: string): Promise<unknown> {
  const [row] = await db.$queryRaw<Array<{ jwk: unknown }>>`SELECT signing_key_private_jwk(${kid}) AS jwk`
  if (row?.jwk == null) throw new Error(`signing key ${kid} has no private half`)
  return row.jwk
}

/**
 * Creates the signing-key store.
 * @param db - database client
 * @param options.publishForSeconds - how long a retired key stays in the JWKS (at least the access-token lifetime)
 * @param options.secrets - seals and opens the private keys at rest
 */
export function createSigningKeys(
  db: Db,
  options: { publishForSeconds: number; clock: Clock; secrets: SecretBox }
): SigningKeys {
  let cache: LoadedKey[] | undefined
  const imported = new Map<string, Promise<CryptoKey>>()
  let lastReload = 0

  const importKey = (kid: string, jwk: () => JWK | Promise<JWK>) => {
    let key = imported.get(kid)
    if (!key) {
      key = Promise.resolve()
        .then(jwk)
        .then((read) => importJWK(read, SIGNING_ALGORITHM) as Promise<CryptoKey>)
      // A failed read (the database away a moment) is asked again next time, not remembered.
      key.catch(() => imported.delete(kid))
      imported.set(kid, key)
    }
    return key
  }

  async function load(): Promise<LoadedKey[]> {
    const since = new Date(options.clock().getTime() - options.publishForSeconds * 1000)
    const rows = await db.signingKey.findMany({
      where: { OR: [{ retiredAt: null }, { retiredAt: { gt: since } }] },
      orderBy: { createdAt: 'desc' },
      select: { kid: true, publicJwk: true, createdAt: true, retiredAt: true },
    })
    cache = rows.map((r) => ({
      kid: r.kid,
      publicJwk: r.publicJwk as JWK,
      createdAt: r.createdAt,
      retiredAt: r.retiredAt,
    }))
    lastReload = Date.now()
    return cache
  }

  async function createKey(client: Queryable): Promise<void> {
    const { publicKey, privateKey } = await generateKeyPair(SIGNING_ALGORITHM, { extractable: true })
    const kid = newId('signingKey')
    const publicJwk = { ...(await exportJWK(publicKey)), kid, alg: SIGNING_ALGORITHM, use: 'sig' }
    const privateJwk = { ...(await exportJWK(privateKey)), kid, alg: SIGNING_ALGORITHM }
    await client.signingKey.create({
      data: {
        kid,
        algorithm: SIGNING_ALGORITHM,
        publicJwk,
        privateJwk: sealPrivateJwk(options.secrets, kid, privateJwk),
      },
      select: { kid: true },
    })
  }

  /** The cached keys, reloaded after a minute so a rotation made by another instance reaches this one. */
  const currentKeys = async () => (cache && Date.now() - lastReload < CACHE_TTL_MS ? cache : load())

  async function active(): Promise<ActiveSigningKey> {
    let current = (await currentKeys()).find((k) => !k.retiredAt)
    if (!current) {
      // Serialise first-key creation across instances so a fresh database gets exactly one key.
      await db.$transaction(async (tx) => {
        await tx.$executeRaw`SELECT pg_advisory_xact_lock(hashtext('signing_keys'))`
        const existing = await tx.signingKey.findFirst({ where: { retiredAt: null }, select: { kid: true } })
        if (!existing) await createKey(tx)
      })
      current = (await load()).find((k) => !k.retiredAt)
      if (!current) throw new Error('No active signing key after creating one')
    }
    // Read and opened once per process and key: the imported key is cached by kid, so signing a token pays nothing.
    const { kid } = current
    return {
      kid,
      privateKey: await importKey(`private:${kid}`, async () =>
        openPrivateJwk(options.secrets, kid, await storedPrivateJwk(db, kid))
      ),
    }
  }

  async function publicKey(kid: string): Promise<CryptoKey | undefined> {
    let found = (await currentKeys()).find((k) => k.kid === kid)
    // An unknown kid may be a key another instance just created; reload, but at most once a second.
    if (!found && Date.now() - lastReload > 1000) found = (await load()).find((k) => k.kid === kid)
    if (!found) return undefined
    const { publicJwk } = found
    return importKey(`public:${kid}`, () => publicJwk)
  }

  async function jwks() {
    await active()
    return { keys: (await currentKeys()).map((k) => k.publicJwk) }
  }

  async function rotate(): Promise<string> {
    const now = options.clock()
    await db.$transaction(async (tx) => {
      await tx.signingKey.updateMany({ where: { retiredAt: null }, data: { retiredAt: now } })
      await createKey(tx)
    })
    const loaded = await load()
    return loaded.find((k) => !k.retiredAt)!.kid
  }

  return { active, publicKey, jwks, rotate }
}
