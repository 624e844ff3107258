/** @module The platform roles as a manager reads them. */
import type { Schema } from '@therapy-care/sdk'

type PlatformRole = Schema<'PlatformRole'>

/**
 * The platform roles (domain/auth/roles.ts), most powerful first, as a manager reads them: a record over the API's enum,
 * so a role it adds fails the type check until it has its words here.
 */
const ROLE_WORDS: Record<PlatformRole, string> = {
  OWNER: 'Owner',
  ADMIN: 'Admin',
  CLINICIAN: 'Clinician',
  FRONT_DESK: 'Front desk',
  BILLING: 'Billing',
  READ_ONLY: 'Read only',
}

export const ROLES: ReadonlyArray<{ role: PlatformRole; words: string }> = Object.entries(ROLE_WORDS).map(
  ([role, words]) => ({ role: role as PlatformRole, words })
)

export const roleWords = (role: PlatformRole) => ROLE_WORDS[role]

/**
 * Reads `group = Role` lines (a role by its name or its words, any case) into a mapping; the lines it cannot read are
 * returned so the form can say which.
 */
export function parseRoleMapping(text: string): { mapping: Record<string, PlatformRole>; unread: string[] } {
  const mapping: Record<string, PlatformRole> = {}
  const unread: string[] = []
  for (const line of text.split('\n').map((l) => l.trim())) {
    if (!line) continue
    const at = line.lastIndexOf('=')
    const wanted = line
      .slice(at + 1)
      .trim()
      .toLowerCase()
      .replace(/[\s_]+/g, ' ')
    const role = ROLES.find(
      (r) => r.words.toLowerCase() === wanted || r.role.toLowerCase().replace('_', ' ') === wanted
    )
    const group = line.slice(0, at).trim()
    if (at <= 0 || !group || !role) unread.push(line)
    else mapping[group] = role.role
  }
  return { mapping, unread }
}
