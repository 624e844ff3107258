/**
 * @module The therapy disciplines the platform knows. One vocabulary for what a provider practises (provider
 * `disciplines`), what an appointment delivers (its `service`, e.g. in the `booking.created` event) and what a price
 * list prices, so matching, availability filters and billing never translate between near-synonyms.
 */
import { z } from '@hono/zod-openapi'

export const DISCIPLINES = [
  'SPEECH_THERAPY',
  'OCCUPATIONAL_THERAPY',
  'PHYSICAL_THERAPY',
  'EARLY_INTERVENTION',
  'FEEDING_THERAPY',
  'APPLIED_BEHAVIOUR_ANALYSIS',
  'DEVELOPMENTAL_THERAPY',
  'PSYCHOLOGY',
] as const

export type Discipline = (typeof DISCIPLINES)[number]

export const DisciplineSchema = z
  .enum(DISCIPLINES)
  .openapi('Discipline', { description: 'A therapy discipline; also the `service` an appointment delivers.' })

export const isDiscipline = (value: string): value is Discipline => (DISCIPLINES as readonly string[]).includes(value)
