/**
 * @module What a pet record is (for animal-assisted therapy and households; docs/care-records.md,
 * "Pets"): the animal,
 * its owner (a client), what a therapist must know before a session (temperament, allergies, fears) and, for a
 * therapy animal, its certification.
 */
import { z } from '@hono/zod-openapi'
import { CalendarDate, Note } from '../clients/record-fields.ts'
import { resourceId } from '../id-schema.ts'

export const PET_SPECIES = ['DOG', 'CAT', 'HORSE', 'RABBIT', 'GUINEA_PIG', 'BIRD', 'REPTILE', 'FISH', 'OTHER'] as const

export const TherapyAnimalCertification = z
  .strictObject({
    registry: z
      .string()
      .trim()
      .min(1)
      .max(200)
      .openapi({ description: 'The certifying organisation', example: 'Pet Partners' }),
    number: z.string().trim().min(1).max(100).optional().openapi({ description: 'Registration or certificate number' }),
    expiresOn: CalendarDate.optional().openapi({ description: 'When the certification lapses' }),
  })
  .openapi('TherapyAnimalCertification')

/** The writable fields of a pet. */
export const PetFields = z
  .strictObject({
    ownerClientId: resourceId('client').openapi({ description: 'The client the pet belongs to' }),
    name: z.string().trim().min(1).max(100).openapi({ example: 'Biscuit' }),
    species: z.enum(PET_SPECIES),
    breed: z.string().trim().min(1).max(100).optional().openapi({ example: 'Golden retriever' }),
    temperament: Note(1000).optional().openapi({ example: 'Calm with children; startles at loud noises' }),
    notes: Note(4000).optional().openapi({
      description: 'Allergies, fears and handling notes relevant to sessions',
      example: 'Sibling allergic to cats',
    }),
    therapyAnimal: z.boolean().default(false).openapi({ description: 'Works in animal-assisted therapy sessions' }),
    certification: TherapyAnimalCertification.optional(),
  })
  .superRefine((pet, ctx) => {
    if (pet.certification && !pet.therapyAnimal) {
      ctx.addIssue({
        code: 'custom',
        path: ['certification'],
        message:
          'Only a therapy animal carries a certification: set therapyAnimal to true, or remove the certification.',
        params: { code: 'requires_therapy_animal' },
      })
    }
  })

export type PetFieldsInput = z.output<typeof PetFields>
