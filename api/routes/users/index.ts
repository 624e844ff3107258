/** @module /v1/users, /v1/sso-connections and /v1/me: thin handlers over the platform-user service. */
import { OpenAPIHono, type z } from '@hono/zod-openapi'
import type { PlatformRole } from '../../../generated/prisma/enums.ts'
import { ssoSettings } from '../../../domain/auth/sso-settings.ts'
import {
  createSsoConnection,
  listPlatformUsers,
  listSsoConnections,
  updatePlatformUser,
} from '../../../domain/users/platform-user-service.ts'
import type { AppDeps, AppEnv } from '../../app-env.ts'
import { validationHook } from '../../openapi/validation-hook.ts'
import { describeCaller } from '../../../domain/users/current-caller.ts'
import { getCurrentCallerRoute } from './me.routes.ts'
import {
  createSsoConnectionRoute,
  listSsoConnectionsRoute,
  listUsersRoute,
  updateUserRoute,
  type PlatformUser,
  type SsoConnection,
} from './users.routes.ts'

type ConnectionRow = Awaited<ReturnType<typeof listSsoConnections>>[number]
type UserRow = Awaited<ReturnType<typeof updatePlatformUser>>

const toConnection = (s: ConnectionRow): z.infer<typeof SsoConnection> => ({
  id: s.id,
  issuer: s.issuer,
  audience: s.audience,
  jwksUri: s.jwksUri,
  roleClaim: s.roleClaim,
  roleMapping: s.roleMapping as Record<string, PlatformRole>,
  defaultRole: s.defaultRole,
  createdAt: s.createdAt.toISOString(),
})

const toUser = (u: UserRow): z.infer<typeof PlatformUser> => ({
  id: u.id,
  email: u.email,
  name: u.name,
  role: u.role,
  ssoIssuer: u.ssoIssuer,
  disabled: u.disabledAt !== null,
  providerId: u.providerId,
  createdAt: u.createdAt.toISOString(),
})

export function userRoutes({ config, clock, outbound }: Pick<AppDeps, 'config' | 'clock' | 'outbound'>) {
  const sso = { ...ssoSettings(config), vetAddress: outbound.vetAddress }
  return new OpenAPIHono<AppEnv>({ defaultHook: validationHook })
    .openapi(createSsoConnectionRoute, async (c) => {
      const connection = await createSsoConnection(c.var.uow, c.req.valid('json'), sso)
      return c.json(toConnection(connection), 201)
    })
    .openapi(listSsoConnectionsRoute, async (c) =>
      c.json({ data: (await listSsoConnections(c.var.uow)).map(toConnection) }, 200)
    )
    .openapi(listUsersRoute, async (c) => {
      const page = await listPlatformUsers(c.var.uow, c.req.valid('query'))
      return c.json({ data: page.data.map(toUser), nextCursor: page.nextCursor }, 200)
    })
    .openapi(updateUserRoute, async (c) =>
      c.json(
        toUser(
          await updatePlatformUser(c.var.uow, c.var.principal, c.req.valid('param').id, c.req.valid('json'), clock())
        ),
        200
      )
    )
    .openapi(getCurrentCallerRoute, async (c) => c.json(await describeCaller(c.var.uow, c.var.principal), 200))
}
