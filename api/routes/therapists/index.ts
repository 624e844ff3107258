/** @module /v1/therapists: thin handlers over matching and the matching profile. */
import { OpenAPIHono } from '@hono/zod-openapi'
import {
  getMatchProfile,
  patchMatchProfile,
  type MatchProfileView,
} from '../../../domain/therapists/match-profile-service.ts'
import { matchTherapists } from '../../../domain/therapists/match-service.ts'
import type { AppDeps, AppEnv } from '../../app-env.ts'
import { validationHook } from '../../openapi/validation-hook.ts'
import { getMatchProfileRoute, matchTherapistsRoute, patchMatchProfileRoute } from './therapists.routes.ts'

const toProfile = (p: MatchProfileView) => ({ ...p, updatedAt: p.updatedAt?.toISOString() ?? null })

export function therapistRoutes({ clock }: Pick<AppDeps, 'clock'>) {
  return new OpenAPIHono<AppEnv>({ defaultHook: validationHook })
    .openapi(matchTherapistsRoute, async (c) =>
      c.json(await matchTherapists(c.var.uow, c.req.valid('json'), clock()), 200)
    )
    .openapi(getMatchProfileRoute, async (c) =>
      c.json(toProfile(await getMatchProfile(c.var.uow, c.req.valid('param').id)), 200)
    )
    .openapi(patchMatchProfileRoute, async (c) =>
      c.json(toProfile(await patchMatchProfile(c.var.uow, c.req.valid('param').id, c.req.valid('json'))), 200)
    )
}
