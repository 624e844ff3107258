/** @module A child's early-intervention plan: thin handlers over domain/early-intervention. */
import { OpenAPIHono } from '@hono/zod-openapi'
import { listCareNotifications } from '../../../domain/care-workflows/care-notifications.ts'
import { EI_WORKFLOW_KIND } from '../../../domain/early-intervention/ei-plan-store.ts'
import {
  getEarlyInterventionView,
  recordTimelineException,
  withdrawTimelineException,
} from '../../../domain/early-intervention/ei-service.ts'
import { createEarlyInterventionSync } from '../../../domain/early-intervention/ei-workflow-sync.ts'
import { notFound } from '../../../domain/errors.ts'
import type { AppDeps, AppEnv } from '../../app-env.ts'
import { validationHook } from '../../openapi/validation-hook.ts'
import { toCareNotification } from '../care-workflows/care-notification-schema.ts'
import {
  getPlanRoute,
  listNotificationsRoute,
  recordExceptionRoute,
  withdrawExceptionRoute,
} from './early-intervention.routes.ts'

export function earlyInterventionRoutes(
  deps: Pick<AppDeps, 'clock' | 'outbox' | 'temporal' | 'logger' | 'config'>
): OpenAPIHono<AppEnv> {
  const sync = createEarlyInterventionSync({ ...deps, dayMs: deps.config.CARE_WORKFLOW_DAY_MS })
  /** The exception changes the plan: the workflow re-reads it (and is started if it is not running). */
  async function announce(uow: AppEnv['Variables']['uow'], childId: string) {
    const child = await uow.tx.child.findFirst({
      where: { id: childId, tenantId: uow.tenantId },
      select: { id: true, eiReferralDate: true, eiExitDate: true, archivedAt: true },
    })
    if (child) await sync.childChanged(uow, child)
  }
  return new OpenAPIHono<AppEnv>({ defaultHook: validationHook })
    .openapi(getPlanRoute, async (c) => c.json(await getEarlyInterventionView(c.var.uow, c.req.valid('param').id), 200))
    .openapi(listNotificationsRoute, async (c) => {
      const { id } = c.req.valid('param')
      const child = await c.var.uow.tx.child.findFirst({
        where: { id, tenantId: c.var.uow.tenantId },
        select: { id: true },
      })
      if (!child) throw notFound('child', id)
      const page = await listCareNotifications(
        c.var.uow,
        { workflowKind: EI_WORKFLOW_KIND, childId: id },
        c.req.valid('query')
      )
      return c.json({ data: page.data.map(toCareNotification), nextCursor: page.nextCursor }, 200)
    })
    .openapi(recordExceptionRoute, async (c) => {
      const { id } = c.req.valid('param')
      const plan = await recordTimelineException(c.var.uow, id, c.req.valid('json'), deps.clock())
      await announce(c.var.uow, id)
      return c.json(plan, 200)
    })
    .openapi(withdrawExceptionRoute, async (c) => {
      const { id } = c.req.valid('param')
      const plan = await withdrawTimelineException(c.var.uow, id)
      await announce(c.var.uow, id)
      return c.json(plan, 200)
    })
}
