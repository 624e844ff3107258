/** @module Marketplace leads: thin handlers over domain/leads/lead-service.ts. */
import { OpenAPIHono, type z } from '@hono/zod-openapi'
import { listLeadNotifications, type LeadView } from '../../../domain/leads/lead-store.ts'
import type { AppDeps, AppEnv } from '../../app-env.ts'
import { validationHook } from '../../openapi/validation-hook.ts'
import { toCareNotification } from '../../openapi/care-notification-schema.ts'
import {
  bookLeadRoute,
  closeLeadRoute,
  createLeadRoute,
  getLeadRoute,
  listLeadNotificationsRoute,
  listLeadsRoute,
  offerLeadRoute,
  patchLeadRoute,
  type Lead,
} from './leads.routes.ts'

/** The view as the response schema types it (its JSON columns are written only by the lead domain). */
const toLead = (view: LeadView) => view as unknown as z.infer<typeof Lead>

export function leadRoutes(deps: Pick<AppDeps, 'clock' | 'leads'>): OpenAPIHono<AppEnv> {
  const { leads } = deps
  return new OpenAPIHono<AppEnv>({ defaultHook: validationHook })
    .openapi(createLeadRoute, async (c) => {
      const lead = await leads.create(c.var.uow, c.req.valid('json'))
      c.header('Location', `/v1/leads/${lead.id}`)
      return c.json(toLead(lead), 201)
    })
    .openapi(listLeadsRoute, async (c) => {
      const page = await leads.list(c.var.uow, c.req.valid('query'))
      return c.json({ data: page.data.map(toLead), nextCursor: page.nextCursor }, 200)
    })
    .openapi(getLeadRoute, async (c) => c.json(toLead(await leads.get(c.var.uow, c.req.valid('param').id)), 200))
    .openapi(patchLeadRoute, async (c) =>
      c.json(toLead(await leads.patch(c.var.uow, c.req.valid('param').id, c.req.valid('json'))), 200)
    )
    .openapi(offerLeadRoute, async (c) =>
      c.json(toLead(await leads.offer(c.var.uow, c.req.valid('param').id, c.req.valid('json').slots)), 200)
    )
    .openapi(bookLeadRoute, async (c) =>
      c.json(toLead(await leads.book(c.var.uow, c.req.valid('param').id, c.req.valid('json'), deps.clock())), 200)
    )
    .openapi(closeLeadRoute, async (c) =>
      c.json(toLead(await leads.close(c.var.uow, c.req.valid('param').id, c.req.valid('json'), deps.clock())), 200)
    )
    .openapi(listLeadNotificationsRoute, async (c) => {
      const page = await listLeadNotifications(c.var.uow, c.req.valid('param').id, c.req.valid('query'))
      return c.json({ data: page.data.map(toCareNotification), nextCursor: page.nextCursor }, 200)
    })
}
