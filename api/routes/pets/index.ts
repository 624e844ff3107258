/** @module /v1/pets: thin handlers over the pet service. */
import { OpenAPIHono, type z } from '@hono/zod-openapi'
import type { Pet as PetRow } from '../../../generated/prisma/client.ts'
import { archivePet, certificationOf, createPet, getPet, listPets, patchPet } from '../../../domain/pets/pet-service.ts'
import type { AppDeps, AppEnv } from '../../app-env.ts'
import { validationHook } from '../../openapi/validation-hook.ts'
import { archivePetRoute, createPetRoute, getPetRoute, listPetsRoute, patchPetRoute, type Pet } from './pets.routes.ts'

type PetBody = z.infer<typeof Pet>

export const toPet = (pet: PetRow): PetBody => ({
  id: pet.id,
  ownerClientId: pet.ownerClientId,
  name: pet.name,
  species: pet.species as PetBody['species'],
  breed: pet.breed,
  temperament: pet.temperament,
  notes: pet.notes,
  therapyAnimal: pet.therapyAnimal,
  certification: certificationOf(pet) ?? null,
  archivedAt: pet.archivedAt?.toISOString() ?? null,
  createdAt: pet.createdAt.toISOString(),
  updatedAt: pet.updatedAt.toISOString(),
})

export function petRoutes({ clock }: Pick<AppDeps, 'clock'>) {
  return new OpenAPIHono<AppEnv>({ defaultHook: validationHook })
    .openapi(createPetRoute, async (c) => {
      const pet = await createPet(c.var.uow, c.req.valid('json'))
      c.header('Location', `/v1/pets/${pet.id}`)
      return c.json(toPet(pet), 201)
    })
    .openapi(listPetsRoute, async (c) => {
      const page = await listPets(c.var.uow, c.req.valid('query'))
      return c.json({ data: page.data.map(toPet), nextCursor: page.nextCursor }, 200)
    })
    .openapi(getPetRoute, async (c) => c.json(toPet(await getPet(c.var.uow, c.req.valid('param').id)), 200))
    .openapi(patchPetRoute, async (c) =>
      c.json(toPet(await patchPet(c.var.uow, c.req.valid('param').id, c.req.valid('json'))), 200)
    )
    .openapi(archivePetRoute, async (c) =>
      c.json(toPet(await archivePet(c.var.uow, c.req.valid('param').id, clock())), 200)
    )
}
