/**
 * @module Generated secrets. Client secrets and refresh tokens are 256 random bits, so a single SHA-256 is a
 * sufficient at-rest hash (no dictionary to attack) and keeps the token endpoint fast; comparison is constant-time.
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto'

/**
 * A new secret: a readable prefix and 32 random bytes in base64url.
 * @param prefix - e.g. `cs` for client secrets, `rt` for refresh tokens
 */
export const generateSecret = (prefix: string): string => `${prefix}_${randomBytes(32).toString('base64url')}`

/** The stored form of a secret: hex SHA-256. */
export const hashSecret = (secret: string): string => createHash('sha256').update(secret, 'utf8').digest('hex')

/** Constant-time check of a presented secret against its stored hash. */
export function verifySecret(secret: string, storedHash: string): boolean {
  const presented = Buffer.from(hashSecret(secret), 'hex')
  const stored = Buffer.from(storedHash, 'hex')
  return presented.length === stored.length && timingSafeEqual(presented, stored)
}
