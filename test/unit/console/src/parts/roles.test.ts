/** The SSO form's role mapping, typed as `group = Role` lines, read as the API's `roleMapping`. */
import { describe, expect, it } from 'vitest'
import { parseRoleMapping } from '../../../../../console/src/parts/roles.ts'

describe('parseRoleMapping', () => {
  it('reads a role by its words or its name, in any case, and skips blank lines', () => {
    expect(parseRoleMapping('therapists = Clinician\n\nfront-desk=front desk\nit = READ_ONLY\n')).toEqual({
      mapping: { therapists: 'CLINICIAN', 'front-desk': 'FRONT_DESK', it: 'READ_ONLY' },
      unread: [],
    })
  })

  it('keeps a group name with "=" in it whole, and says which lines it could not read', () => {
    expect(parseRoleMapping('cn=admins,ou=groups = Admin\nno role here\n= Owner\nboss = Emperor')).toEqual({
      mapping: { 'cn=admins,ou=groups': 'ADMIN' },
      unread: ['no role here', '= Owner', 'boss = Emperor'],
    })
  })
})
