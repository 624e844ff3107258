/** @module Route table of /v1/pets: household pets and therapy animals, each owned by a client. */
import { z } from '@hono/zod-openapi'
import { BooleanQuery } from '../../../domain/clients/record-fields.ts'
import { listQuerySchema } from '../../../domain/listing.ts'
import { mergePatchSchema } from '../../../domain/merge-patch.ts'
import { PET_SPECIES, PetFields, TherapyAnimalCertification } from '../../../domain/pets/pet-schema.ts'
import { PET_SORTS } from '../../../domain/pets/pet-service.ts'
import { COMMON_ERRORS, problemResponses, protectedRoute } from '../../openapi/routes.ts'
import { IdParam, UtcDateTime, pageOf } from '../../openapi/schemas.ts'
import { resourceId } from '../../../domain/id-schema.ts'
import { orNull } from '../../../domain/nullable.ts'

export const PetCreate = PetFields.openapi('PetCreate')

export const PetPatch = mergePatchSchema(PetFields, {
  required: ['ownerClientId', 'name', 'species', 'therapyAnimal'],
  nested: { certification: mergePatchSchema(TherapyAnimalCertification) },
}).openapi('PetPatch', {
  description:
    'A JSON merge patch (RFC 7396): members present replace, null removes, `certification` merges member by member.',
})

export const Pet = z
  .object({
    id: resourceId('pet'),
    ownerClientId: z.string(),
    name: z.string(),
    species: z.enum(PET_SPECIES),
    breed: z.string().nullable(),
    temperament: z.string().nullable(),
    notes: z.string().nullable(),
    therapyAnimal: z.boolean(),
    certification: orNull(TherapyAnimalCertification),
    archivedAt: UtcDateTime.nullable(),
    createdAt: UtcDateTime,
    updatedAt: UtcDateTime,
  })
  .openapi('Pet')

const ListPetsQuery = listQuerySchema(PET_SORTS, '-createdAt').extend({
  ownerClientId: z
    .string()
    .max(64)
    .optional()
    .openapi({ param: { name: 'ownerClientId', in: 'query' } }),
  species: z
    .enum(PET_SPECIES)
    .optional()
    .openapi({ param: { name: 'species', in: 'query' } }),
  therapyAnimal: BooleanQuery('therapyAnimal', 'true: only therapy animals; false: only household pets'),
  archived: BooleanQuery('archived', 'true lists only archived pets; default false (only active ones)'),
})

const PetId = IdParam('pet')
const petResponse = (description: string) => ({ description, content: { 'application/json': { schema: Pet } } })

export const createPetRoute = protectedRoute('pets', {
  method: 'post',
  path: '/v1/pets',
  tags: ['Pets'],
  summary: 'Record a pet or therapy animal of a client',
  request: { body: { required: true, content: { 'application/json': { schema: PetCreate } } } },
  responses: { 201: petResponse('The pet'), ...problemResponses(400, 409, 413, 415, 422, ...COMMON_ERRORS) },
})

export const listPetsRoute = protectedRoute('pets.read', {
  method: 'get',
  path: '/v1/pets',
  tags: ['Pets'],
  summary: 'List pets',
  request: { query: ListPetsQuery },
  responses: {
    200: { description: 'A page of pets', content: { 'application/json': { schema: pageOf(Pet, 'PetPage') } } },
    ...problemResponses(400, ...COMMON_ERRORS),
  },
})

export const getPetRoute = protectedRoute('pets.read', {
  method: 'get',
  path: '/v1/pets/{id}',
  tags: ['Pets'],
  summary: 'Retrieve a pet',
  request: { params: PetId },
  responses: { 200: petResponse('The pet'), ...problemResponses(404, ...COMMON_ERRORS) },
})

export const patchPetRoute = protectedRoute('pets', {
  method: 'patch',
  path: '/v1/pets/{id}',
  tags: ['Pets'],
  summary: 'Update a pet (JSON merge patch)',
  request: {
    params: PetId,
    body: {
      required: true,
      content: { 'application/merge-patch+json': { schema: PetPatch }, 'application/json': { schema: PetPatch } },
    },
  },
  responses: { 200: petResponse('The pet'), ...problemResponses(400, 404, 409, 413, 415, 422, ...COMMON_ERRORS) },
})

export const archivePetRoute = protectedRoute('pets', {
  method: 'delete',
  path: '/v1/pets/{id}',
  tags: ['Pets'],
  summary: 'Archive a pet',
  description:
    'Archives rather than deletes: the pet stays readable (with `archivedAt`) and drops out of lists unless `archived=true`.',
  request: { params: PetId },
  responses: { 200: petResponse('The archived pet'), ...problemResponses(404, 409, 422, ...COMMON_ERRORS) },
})
