/**
 * @module What a client record is: the writable fields of a parent, guardian or payer, and their vocabularies. The
 * same schema validates a create and the outcome of a PATCH; `custom_fields` are checked separately against the
 * location's definitions (domain/custom-fields/validate-custom-fields.ts).
 */
import { z } from '@hono/zod-openapi'
import { LOCATION_ID_RULE } from '../locations/resolve-location.ts'
import { LanguageTag, PersonName, PhoneNumber } from './record-fields.ts'
import { resourceId } from '../id-schema.ts'

/** What a client is to the centre; one client may hold several roles (a mother who also pays). */
export const CLIENT_ROLES = ['PARENT', 'GUARDIAN', 'PAYER', 'EMERGENCY_CONTACT', 'CAREGIVER', 'OTHER'] as const
export type ClientRole = (typeof CLIENT_ROLES)[number]

export const PostalAddress = z
  .strictObject({
    line1: z.string().trim().min(1).max(200).optional(),
    line2: z.string().trim().min(1).max(200).optional(),
    city: z.string().trim().min(1).max(100).optional(),
    region: z.string().trim().min(1).max(100).optional().openapi({ description: 'State, province or region' }),
    postalCode: z.string().trim().min(1).max(20).optional(),
    country: z
      .string()
      .regex(/^[A-Z]{2}$/, 'An ISO 3166-1 alpha-2 country code, e.g. US.')
      .optional()
      .openapi({ example: 'US' }),
  })
  .openapi('PostalAddress')

export type PostalAddressValue = z.output<typeof PostalAddress>

/** The writable fields of a client other than `custom_fields`. */
export const ClientFields = z.strictObject({
  firstName: PersonName.openapi({ example: 'Amara' }),
  lastName: PersonName.openapi({ example: 'Okafor' }),
  // Stored lowercased, so the email filter is an indexed equality rather than a case-insensitive scan.
  email: z
    .email()
    .max(254)
    .toLowerCase()
    .optional()
    .openapi({ example: 'amara.okafor@example.org', description: 'Stored in lowercase' }),
  phone: PhoneNumber.optional(),
  preferredLanguage: LanguageTag.optional(),
  address: PostalAddress.optional(),
  roles: z
    .array(z.enum(CLIENT_ROLES))
    .max(CLIENT_ROLES.length)
    .refine((roles) => new Set(roles).size === roles.length, 'Roles must be unique.')
    .default([]),
  locationId: resourceId('location').optional().openapi({ description: LOCATION_ID_RULE }),
})

export type ClientFieldsInput = z.output<typeof ClientFields>

/** A client's `custom_fields` as sent: values by key; `null` removes a value (merge patch). */
export const CustomFieldValuesInput = z
  .record(z.string().max(64), z.union([z.string(), z.number(), z.boolean(), z.null()]))
  .openapi({
    description:
      "Values of the location's custom fields keyed by field key (see /v1/custom-field-definitions). Unknown keys " +
      'are refused; `null` removes a value.',
    example: { referral_source: 'Physician', intake_date: '2026-01-12' },
  })
