/** @module /v1/custom-field-definitions: thin handlers over the definition service. */
import { OpenAPIHono, type z } from '@hono/zod-openapi'
import type { CustomFieldDefinition as DefinitionRow } from '../../../generated/prisma/client.ts'
import {
  archiveDefinition,
  createDefinition,
  getDefinition,
  listDefinitions,
  patchDefinition,
} from '../../../domain/custom-fields/custom-field-definition-service.ts'
import type { AppDeps, AppEnv } from '../../app-env.ts'
import { validationHook } from '../../openapi/validation-hook.ts'
import {
  archiveDefinitionRoute,
  createDefinitionRoute,
  getDefinitionRoute,
  listDefinitionsRoute,
  patchDefinitionRoute,
  type CustomFieldDefinition,
} from './custom-fields.routes.ts'

type Definition = z.infer<typeof CustomFieldDefinition>

export const toDefinition = (row: DefinitionRow): Definition => ({
  id: row.id,
  locationId: row.locationId,
  key: row.key,
  label: row.label,
  description: row.description,
  type: row.type as Definition['type'],
  required: row.required,
  options: row.type === 'SELECT' ? row.options : null,
  position: row.position,
  archivedAt: row.archivedAt?.toISOString() ?? null,
  createdAt: row.createdAt.toISOString(),
  updatedAt: row.updatedAt.toISOString(),
})

export function customFieldRoutes({ clock }: Pick<AppDeps, 'clock'>) {
  return new OpenAPIHono<AppEnv>({ defaultHook: validationHook })
    .openapi(createDefinitionRoute, async (c) => {
      const row = await createDefinition(c.var.uow, c.req.valid('json'))
      c.header('Location', `/v1/custom-field-definitions/${row.id}`)
      return c.json(toDefinition(row), 201)
    })
    .openapi(listDefinitionsRoute, async (c) => {
      const page = await listDefinitions(c.var.uow, c.req.valid('query'))
      return c.json({ data: page.data.map(toDefinition), nextCursor: page.nextCursor }, 200)
    })
    .openapi(getDefinitionRoute, async (c) =>
      c.json(toDefinition(await getDefinition(c.var.uow, c.req.valid('param').id)), 200)
    )
    .openapi(patchDefinitionRoute, async (c) =>
      c.json(toDefinition(await patchDefinition(c.var.uow, c.req.valid('param').id, c.req.valid('json'))), 200)
    )
    .openapi(archiveDefinitionRoute, async (c) =>
      c.json(toDefinition(await archiveDefinition(c.var.uow, c.req.valid('param').id, clock())), 200)
    )
}
