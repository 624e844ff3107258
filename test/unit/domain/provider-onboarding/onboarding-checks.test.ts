/** The onboarding checks: profile and document gaps, licence verification (domain/provider-onboarding/onboarding-checks.ts). */
import { describe, expect, it } from 'vitest'
import { documentGaps, profileGaps, verifyLicence } from '../../../../domain/provider-onboarding/onboarding-checks.ts'

const licence = (expiresOn?: string) => ({
  type: 'LICENSE',
  number: 'SLP-1',
  issuingCountry: 'US',
  issuingRegion: 'TX',
  ...(expiresOn ? { expiresOn } : {}),
})

describe('profile and documents', () => {
  it('names each missing part of the profile', () => {
    expect(
      profileGaps({ email: null, disciplines: [], ageGroups: ['INFANT_TODDLER'], languages: [] }).map((g) => g.path)
    ).toEqual(['email', 'disciplines', 'languages'])
    expect(
      profileGaps({ email: 'a@b.c', disciplines: ['SPEECH_THERAPY'], ageGroups: ['INFANT_TODDLER'], languages: ['en'] })
    ).toEqual([])
  })

  it('requires a licence and an identity document', () => {
    expect(documentGaps([{ type: 'DEGREE' }]).map((g) => g.message)).toEqual([
      'A LICENSE document is required.',
      'A IDENTITY document is required.',
    ])
    expect(documentGaps([{ type: 'LICENSE' }, { type: 'IDENTITY' }])).toEqual([])
  })
})

describe('licence verification', () => {
  const docs = [{ type: 'LICENSE' }]
  it('verifies a licence valid more than 30 days with a licence document', () => {
    expect(verifyLicence([licence('2027-06-30')], docs, '2026-11-21')).toMatchObject({
      outcome: 'VERIFIED',
      reasons: [],
      licence: { number: 'SLP-1', expiresOn: '2027-06-30' },
    })
  })

  it('fails without a licence, with an expired one, one about to lapse, or without the document', () => {
    expect(verifyLicence([], docs, '2026-11-21').reasons).toEqual(['NO_LICENSE'])
    expect(verifyLicence([licence('2026-11-21')], docs, '2026-11-21').reasons).toEqual(['LICENSE_EXPIRED'])
    expect(verifyLicence([licence('2026-12-10')], docs, '2026-11-21').reasons).toEqual(['LICENSE_EXPIRES_SOON'])
    expect(verifyLicence([licence('2027-06-30')], [{ type: 'IDENTITY' }], '2026-11-21')).toMatchObject({
      outcome: 'FAILED',
      reasons: ['NO_LICENSE_DOCUMENT'],
    })
  })

  it('judges by the licence valid longest (a renewal next to the lapsed one)', () => {
    expect(verifyLicence([licence('2025-01-01'), licence('2028-01-01')], docs, '2026-11-21').outcome).toBe('VERIFIED')
    expect(verifyLicence([licence('2025-01-01'), licence()], docs, '2026-11-21').outcome).toBe('VERIFIED')
  })
})
