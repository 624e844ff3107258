/** Credentials' dates: found by Schemathesis, an impossible calendar date made validation throw (a 500). */
import { describe, expect, it } from 'vitest'
import { CredentialSchema } from '../../../../domain/providers/credentials.ts'

const licence = (dates: { issuedOn?: string; expiresOn?: string }) => ({
  type: 'LICENSE',
  number: 'SLP-1',
  issuingCountry: 'US',
  ...dates,
})

describe('credential dates', () => {
  it.each(['2024-13-01', '2024-02-30', '9999-99-99', '0000-00-00'])(
    'refuses %s as a validation issue, never by throwing',
    (date) => {
      for (const dates of [{ expiresOn: date }, { issuedOn: date }]) {
        const parsed = CredentialSchema.safeParse(licence(dates))
        expect(parsed.success).toBe(false)
        expect(parsed.error?.issues.map((i) => i.message)).toContain('Not a valid date')
      }
    }
  )

  it('accepts real dates, a leap day included', () => {
    expect(CredentialSchema.safeParse(licence({ issuedOn: '2024-02-29', expiresOn: '2027-06-30' })).success).toBe(true)
  })
})
