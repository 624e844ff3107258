/** @module /v1/clients: thin handlers over the client service. */
import { OpenAPIHono, type z } from '@hono/zod-openapi'
import type { Client as ClientRow } from '../../../generated/prisma/client.ts'
import {
  archiveClient,
  createClient,
  customFieldsOf,
  getClient,
  listClients,
  patchClient,
} from '../../../domain/clients/client-service.ts'
import type { AppDeps, AppEnv } from '../../app-env.ts'
import { validationHook } from '../../openapi/validation-hook.ts'
import {
  archiveClientRoute,
  createClientRoute,
  getClientRoute,
  listClientsRoute,
  patchClientRoute,
  type Client,
} from './clients.routes.ts'

export const toClient = (client: ClientRow): z.infer<typeof Client> => ({
  id: client.id,
  locationId: client.locationId,
  firstName: client.firstName,
  lastName: client.lastName,
  email: client.email,
  phone: client.phone,
  preferredLanguage: client.preferredLanguage,
  address: (client.address ?? null) as z.infer<typeof Client>['address'],
  roles: client.roles as z.infer<typeof Client>['roles'],
  custom_fields: customFieldsOf(client),
  archivedAt: client.archivedAt?.toISOString() ?? null,
  createdAt: client.createdAt.toISOString(),
  updatedAt: client.updatedAt.toISOString(),
})

export function clientRoutes({ clock }: Pick<AppDeps, 'clock'>) {
  return new OpenAPIHono<AppEnv>({ defaultHook: validationHook })
    .openapi(createClientRoute, async (c) => {
      const client = await createClient(c.var.uow, c.req.valid('json'))
      c.header('Location', `/v1/clients/${client.id}`)
      return c.json(toClient(client), 201)
    })
    .openapi(listClientsRoute, async (c) => {
      const page = await listClients(c.var.uow, c.req.valid('query'))
      return c.json({ data: page.data.map(toClient), nextCursor: page.nextCursor }, 200)
    })
    .openapi(getClientRoute, async (c) => c.json(toClient(await getClient(c.var.uow, c.req.valid('param').id)), 200))
    .openapi(patchClientRoute, async (c) => {
      const client = await patchClient(c.var.uow, c.req.valid('param').id, c.req.valid('json'))
      return c.json(toClient(client), 200)
    })
    .openapi(archiveClientRoute, async (c) =>
      c.json(toClient(await archiveClient(c.var.uow, c.req.valid('param').id, clock())), 200)
    )
}
