/**
 * @module The checks behind provider onboarding's steps (docs/domain.md, 'Provider onboarding checks': licence and
 * background check, specialty verification, marketplace vetting such as Zencare's): what a complete profile is, which
 * credential documents are required, when a licence counts as verified. Recorded by the steps (onboarding-steps.ts);
 * the workflow runs only the step order and timing (common/provider-onboarding/onboarding-rules.ts).
 */
import type { DocumentType } from '../../common/provider-onboarding/onboarding-rules.ts'
import type { FieldError } from '../errors.ts'
import { addDays } from '../../common/time/calendar.ts'

/** Documents without which the documents step is refused. */
export const REQUIRED_DOCUMENTS: readonly DocumentType[] = ['LICENSE', 'IDENTITY']

/** What a provider's profile must have before its documents are asked for. */
export function profileGaps(provider: {
  email: string | null
  disciplines: string[]
  ageGroups: string[]
  languages: string[]
}): FieldError[] {
  const gaps: FieldError[] = []
  const missing = (path: string, what: string) =>
    gaps.push({ path, code: 'profile_incomplete', message: `The provider's profile needs ${what}.` })
  if (!provider.email) missing('email', 'an email address')
  if (provider.disciplines.length === 0) missing('disciplines', 'at least one discipline')
  if (provider.ageGroups.length === 0) missing('ageGroups', 'the age groups served')
  if (provider.languages.length === 0) missing('languages', 'the languages spoken')
  return gaps
}

/** Problems with a submitted document list: the required types must be there. */
export function documentGaps(documents: ReadonlyArray<{ type: DocumentType }>): FieldError[] {
  const types = new Set(documents.map((d) => d.type))
  return REQUIRED_DOCUMENTS.filter((type) => !types.has(type)).map((type) => ({
    path: 'documents',
    code: 'document_required',
    message: `A ${type} document is required.`,
  }))
}

export type LicenceFailure = 'NO_LICENSE' | 'LICENSE_EXPIRED' | 'LICENSE_EXPIRES_SOON' | 'NO_LICENSE_DOCUMENT'

export interface LicenceVerification {
  outcome: 'VERIFIED' | 'FAILED'
  reasons: LicenceFailure[]
  licence: { number: string; issuingCountry: string; issuingRegion: string | null; expiresOn: string | null } | null
}

/**
 * Verifies the provider's licence to practise against the credentials on record and the documents submitted: a
 * LICENSE credential valid for at least `marginDays` more days (a licence about to lapse would make the provider
 * unbookable weeks after approval), and a LICENSE document backing it. No licensing board is called (none is
 * integrated); the board's check would be one more activity with the same outcome shape.
 * @param today - YYYY-MM-DD
 */
export function verifyLicence(
  credentials: ReadonlyArray<{
    type: string
    number: string
    issuingCountry: string
    issuingRegion?: string
    expiresOn?: string
  }>,
  documents: ReadonlyArray<{ type: string }>,
  today: string,
  marginDays = 30
): LicenceVerification {
  const licences = credentials.filter((c) => c.type === 'LICENSE')
  // The licence valid longest is the one that counts (a renewed licence next to the lapsed one).
  const best = [...licences].sort((a, b) => ((a.expiresOn ?? '9999') < (b.expiresOn ?? '9999') ? 1 : -1))[0]
  const reasons: LicenceFailure[] = []
  if (!best) reasons.push('NO_LICENSE')
  else if (best.expiresOn !== undefined) {
    const margin = addDays(today, marginDays)
    if (best.expiresOn <= today) reasons.push('LICENSE_EXPIRED')
    else if (best.expiresOn <= margin) reasons.push('LICENSE_EXPIRES_SOON')
  }
  if (!documents.some((d) => d.type === 'LICENSE')) reasons.push('NO_LICENSE_DOCUMENT')
  return {
    outcome: reasons.length === 0 ? 'VERIFIED' : 'FAILED',
    reasons,
    licence: best
      ? {
          number: best.number,
          issuingCountry: best.issuingCountry,
          issuingRegion: best.issuingRegion ?? null,
          expiresOn: best.expiresOn ?? null,
        }
      : null,
  }
}
