/** @module The platform roles as a manager reads them. */
import type { Schema } from '@therapy-care/sdk'

type PlatformRole = Schema<'PlatformRole'>

/** The platform roles (domain/auth/roles.ts), most powerful first, with what each is for. */
export const ROLES: ReadonlyArray<{ role: PlatformRole; words: string }> = [
  { role: 'OWNER', words: 'Owner' },
  { role: 'ADMIN', words: 'Admin' },
  { role: 'CLINICIAN', words: 'Clinician' },
  { role: 'FRONT_DESK', words: 'Front desk' },
  { role: 'BILLING', words: 'Billing' },
  { role: 'READ_ONLY', words: 'Read only' },
]

export const roleWords = (role: PlatformRole) => ROLES.find((r) => r.role === role)?.words ?? role

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
