/** @module /v1/children: thin handlers over the child service. */
import { OpenAPIHono, type RouteHandler, type z } from '@hono/zod-openapi'
import { createChild, getChild } from '../../../domain/children/child-service.ts'
import type { AppDeps, AppEnv } from '../../app-env.ts'
import { validationHook } from '../../openapi/validation-hook.ts'
import { createChildRoute, getChildRoute, type Child } from './children.routes.ts'

type ChildRow = Awaited<ReturnType<typeof getChild>>

export const toChild = (child: ChildRow): z.infer<typeof Child> => ({
  id: child.id,
  firstName: child.firstName,
  lastName: child.lastName,
  dateOfBirth: child.dateOfBirth.toISOString().slice(0, 10),
  locationId: child.locationId,
  createdAt: child.createdAt.toISOString(),
  updatedAt: child.updatedAt.toISOString(),
})

/** GET /v1/children/{id}; also serves its deprecated alias /v0/children/{id}. */
export const readChild: RouteHandler<typeof getChildRoute, AppEnv> = async (c) =>
  c.json(toChild(await getChild(c.var.uow, c.req.valid('param').id)), 200)

export function childRoutes({ clock }: Pick<AppDeps, 'clock'>) {
  return new OpenAPIHono<AppEnv>({ defaultHook: validationHook })
    .openapi(createChildRoute, async (c) => {
      const child = await createChild(c.var.uow, c.req.valid('json'), clock())
      c.header('Location', `/v1/children/${child.id}`)
      return c.json(toChild(child), 201)
    })
    .openapi(getChildRoute, readChild)
}
