/**
 * @module A provider's credentials: state licences, certifications (e.g. ASHA CCC-SLP), registrations and
 * identifiers such as the NPI, each with its number, issuer and expiry. The earliest expiry of the licences is kept
 * beside them as `licenceExpiresOn`, because a lapsed licence ends a provider's right to practise: onboarding and
 * reminders look it up without reading every credential.
 */
import { z } from '@hono/zod-openapi'
import { CALENDAR_DATE } from '../time.ts'

export const CREDENTIAL_TYPES = ['LICENSE', 'CERTIFICATION', 'REGISTRATION', 'NPI', 'OTHER'] as const

const CalendarDate = z
  .string()
  .regex(CALENDAR_DATE, 'Must be a calendar date, YYYY-MM-DD')
  // An impossible date such as 2024-13-45 is an Invalid Date, whose toISOString() throws: test it first (a 400, not a 500).
  .refine((v) => {
    const date = new Date(`${v}T00:00:00Z`)
    return !Number.isNaN(date.getTime()) && date.toISOString().startsWith(v)
  }, 'Not a valid date')

export const CredentialSchema = z
  .strictObject({
    type: z.enum(CREDENTIAL_TYPES).openapi({ description: 'LICENSE is a licence to practise; its expiry is tracked.' }),
    name: z.string().trim().min(1).max(200).optional().openapi({ example: 'Speech-Language Pathologist' }),
    number: z.string().trim().min(1).max(100).openapi({ example: 'SLP-104233' }),
    issuingCountry: z
      .string()
      .regex(/^[A-Z]{2}$/, 'An ISO 3166-1 alpha-2 country code')
      .openapi({ example: 'US' }),
    issuingRegion: z
      .string()
      .trim()
      .min(1)
      .max(100)
      .optional()
      .openapi({ description: 'State or region of the issuer, e.g. TX or US-TX', example: 'TX' }),
    issuedOn: CalendarDate.optional(),
    expiresOn: CalendarDate.optional().openapi({ example: '2027-06-30' }),
  })
  .refine((c) => !c.issuedOn || !c.expiresOn || c.expiresOn > c.issuedOn, {
    message: 'expiresOn must be after issuedOn',
    path: ['expiresOn'],
  })
  .openapi('Credential')

export type Credential = z.infer<typeof CredentialSchema>

export const CredentialsSchema = z.array(CredentialSchema).max(50)

/**
 * The earliest expiry among the licences, as a date at midnight UTC; null when no licence has one.
 * @param credentials - validated credentials
 */
export function licenceExpiryOf(credentials: readonly Credential[]): Date | null {
  const dates = credentials.filter((c) => c.type === 'LICENSE' && c.expiresOn).map((c) => c.expiresOn!)
  if (dates.length === 0) return null
  return new Date(`${dates.sort()[0]}T00:00:00.000Z`)
}

/**
 * Reads stored credentials (a JSON column written only by this module).
 * @throws Error when the stored value is malformed (a bug, not user input)
 */
export function readCredentials(value: unknown): Credential[] {
  const parsed = CredentialsSchema.safeParse(value ?? [])
  if (!parsed.success) throw new Error('stored credentials are malformed')
  return parsed.data
}
