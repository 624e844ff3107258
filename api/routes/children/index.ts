/** @module /v1/children: thin handlers over the child service. */
import { OpenAPIHono, type RouteHandler, type z } from '@hono/zod-openapi'
import {
  archiveChild,
  createChild,
  getChild,
  goalsOf,
  listChildren,
  patchChild,
  type ChildRecord,
} from '../../../domain/children/child-service.ts'
import { earlyInterventionOf } from '../../../domain/early-intervention/ei-enrolment.ts'
import type { AppDeps, AppEnv } from '../../app-env.ts'
import { validationHook } from '../../openapi/validation-hook.ts'
import {
  archiveChildRoute,
  createChildRoute,
  getChildRoute,
  listChildrenRoute,
  patchChildRoute,
  type Child,
} from './children.routes.ts'

type ChildBody = z.infer<typeof Child>

export const toChild = (child: ChildRecord): ChildBody => ({
  id: child.id,
  firstName: child.firstName,
  lastName: child.lastName,
  dateOfBirth: child.dateOfBirth.toISOString().slice(0, 10),
  locationId: child.locationId,
  languages: child.languages,
  clients: child.clientLinks.map((link) => ({
    clientId: link.clientId,
    relationship: link.relationship as ChildBody['clients'][number]['relationship'],
    primaryContact: link.primaryContact,
    legalGuardian: link.legalGuardian,
    financiallyResponsible: link.financiallyResponsible,
  })),
  diagnoses: child.diagnoses as ChildBody['diagnoses'],
  goals: goalsOf(child) as ChildBody['goals'],
  earlyIntervention: earlyInterventionOf(child) ?? null,
  archivedAt: child.archivedAt?.toISOString() ?? null,
  createdAt: child.createdAt.toISOString(),
  updatedAt: child.updatedAt.toISOString(),
})

/** GET /v1/children/{id}; also serves its deprecated alias /v0/children/{id}. */
export const readChild: RouteHandler<typeof getChildRoute, AppEnv> = async (c) =>
  c.json(toChild(await getChild(c.var.uow, c.req.valid('param').id)), 200)

export function childRoutes(deps: Pick<AppDeps, 'clock' | 'childCareWorkflows'>) {
  // The child's care workflows (progress follow-up, early-intervention check-in) follow every change of the record.
  const { clock, childCareWorkflows: careWorkflows } = deps
  return new OpenAPIHono<AppEnv>({ defaultHook: validationHook })
    .openapi(createChildRoute, async (c) => {
      const child = await createChild(c.var.uow, c.req.valid('json'), clock())
      await careWorkflows.childRegistered(c.var.uow, child)
      c.header('Location', `/v1/children/${child.id}`)
      return c.json(toChild(child), 201)
    })
    .openapi(listChildrenRoute, async (c) => {
      const page = await listChildren(c.var.uow, c.req.valid('query'))
      return c.json({ data: page.data.map(toChild), nextCursor: page.nextCursor }, 200)
    })
    .openapi(getChildRoute, readChild)
    .openapi(patchChildRoute, async (c) => {
      const child = await patchChild(c.var.uow, c.req.valid('param').id, c.req.valid('json'), clock())
      await careWorkflows.childChanged(c.var.uow, child)
      return c.json(toChild(child), 200)
    })
    .openapi(archiveChildRoute, async (c) => {
      const child = await archiveChild(c.var.uow, c.req.valid('param').id, clock())
      await careWorkflows.childChanged(c.var.uow, child)
      return c.json(toChild(child), 200)
    })
}
