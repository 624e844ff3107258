/**
 * @module The age bands a provider serves. Paediatric therapy sorts families by these bands (early intervention is
 * birth to three, preschool services three to five, then school age), so matching and availability filters use
 * them rather than free-form ages. Each band has an age range in whole months, so a child's age maps to one band.
 */
import { z } from '@hono/zod-openapi'

/** Band → [first month, last month] of age, inclusive; null for no upper bound. */
export const AGE_GROUPS = {
  INFANT_TODDLER: [0, 35],
  PRESCHOOL: [36, 59],
  SCHOOL_AGE: [60, 215],
  ADULT: [216, null],
} as const satisfies Record<string, readonly [number, number | null]>

export type AgeGroup = keyof typeof AGE_GROUPS

export const AGE_GROUP_NAMES = Object.keys(AGE_GROUPS) as [AgeGroup, ...AgeGroup[]]

export const AgeGroupSchema = z.enum(AGE_GROUP_NAMES).openapi('AgeGroup', {
  description:
    'Age band served: INFANT_TODDLER 0–35 months, PRESCHOOL 36–59, SCHOOL_AGE 60–215 (5–17 years), ADULT 18+.',
})

/**
 * The band of an age.
 * @param months - whole months of age (0 or more)
 */
export function ageGroupOf(months: number): AgeGroup {
  for (const name of AGE_GROUP_NAMES) {
    const [, last] = AGE_GROUPS[name]
    if (last === null || months <= last) return name
  }
  return 'ADULT'
}
