/** @module /v1/credentials: a thin handler over domain/auth/credentials-by-grantor.ts. */
import { OpenAPIHono } from '@hono/zod-openapi'
import { credentialsGrantedBy } from '../../../domain/auth/credentials-by-grantor.ts'
import type { AppDeps, AppEnv } from '../../app-env.ts'
import { validationHook } from '../../openapi/validation-hook.ts'
import { listCredentialsRoute } from './credentials.routes.ts'

export function credentialRoutes({ clock }: Pick<AppDeps, 'clock'>) {
  return new OpenAPIHono<AppEnv>({ defaultHook: validationHook }).openapi(listCredentialsRoute, async (c) => {
    const { data, truncated } = await credentialsGrantedBy(c.var.uow, c.req.valid('query').grantedBy, clock())
    return c.json({ data: data.map((d) => ({ ...d, createdAt: d.createdAt.toISOString() })), truncated }, 200)
  })
}
