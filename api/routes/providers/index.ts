/** @module /v1/providers: thin handlers over the provider service. */
import { OpenAPIHono, type z } from '@hono/zod-openapi'
import { createProvider, getProvider, listProviders } from '../../../domain/providers/provider-service.ts'
import type { AppEnv } from '../../app-env.ts'
import { validationHook } from '../../openapi/validation-hook.ts'
import { createProviderRoute, getProviderRoute, listProvidersRoute, type Provider } from './providers.routes.ts'

type ProviderRow = Awaited<ReturnType<typeof getProvider>>

export const toProvider = (p: ProviderRow): z.infer<typeof Provider> => ({
  id: p.id,
  name: p.name,
  timeZone: p.timeZone,
  locationId: p.locationId,
  createdAt: p.createdAt.toISOString(),
  updatedAt: p.updatedAt.toISOString(),
})

export function providerRoutes() {
  return new OpenAPIHono<AppEnv>({ defaultHook: validationHook })
    .openapi(createProviderRoute, async (c) => {
      const provider = await createProvider(c.var.uow, c.req.valid('json'))
      c.header('Location', `/v1/providers/${provider.id}`)
      return c.json(toProvider(provider), 201)
    })
    .openapi(listProvidersRoute, async (c) => {
      const page = await listProviders(c.var.uow, c.req.valid('query'))
      return c.json({ data: page.data.map(toProvider), nextCursor: page.nextCursor }, 200)
    })
    .openapi(getProviderRoute, async (c) => c.json(toProvider(await getProvider(c.var.uow, c.req.valid('param').id)), 200))
}
