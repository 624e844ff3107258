/** @module /v1/prices: thin handlers over the price list. */
import { OpenAPIHono, type z } from '@hono/zod-openapi'
import { archivePrice, createPrice, getPrice, listPrices, updatePrice } from '../../../domain/pricing/price-service.ts'
import type { AppDeps, AppEnv } from '../../app-env.ts'
import { validationHook } from '../../openapi/validation-hook.ts'
import {
  archivePriceRoute,
  createPriceRoute,
  getPriceRoute,
  listPricesRoute,
  updatePriceRoute,
  type Price,
} from './prices.routes.ts'

type PriceRow = Awaited<ReturnType<typeof getPrice>>

export const toPrice = (p: PriceRow): z.infer<typeof Price> => ({
  id: p.id,
  service: p.service as z.infer<typeof Price>['service'],
  appointmentType: p.appointmentType,
  locationId: p.locationId,
  description: p.description,
  amount: p.amount,
  currency: p.currency,
  unit: p.unit,
  active: p.active,
  archivedAt: p.archivedAt?.toISOString() ?? null,
  createdAt: p.createdAt.toISOString(),
  updatedAt: p.updatedAt.toISOString(),
})

export function priceRoutes({ clock }: Pick<AppDeps, 'clock'>) {
  return new OpenAPIHono<AppEnv>({ defaultHook: validationHook })
    .openapi(createPriceRoute, async (c) => {
      const price = await createPrice(c.var.uow, c.req.valid('json'))
      c.header('Location', `/v1/prices/${price.id}`)
      return c.json(toPrice(price), 201)
    })
    .openapi(listPricesRoute, async (c) => {
      const page = await listPrices(c.var.uow, c.req.valid('query'))
      return c.json({ data: page.data.map(toPrice), nextCursor: page.nextCursor }, 200)
    })
    .openapi(getPriceRoute, async (c) => c.json(toPrice(await getPrice(c.var.uow, c.req.valid('param').id)), 200))
    .openapi(updatePriceRoute, async (c) =>
      c.json(toPrice(await updatePrice(c.var.uow, c.req.valid('param').id, c.req.valid('json'))), 200)
    )
    .openapi(archivePriceRoute, async (c) =>
      c.json(toPrice(await archivePrice(c.var.uow, c.req.valid('param').id, clock())), 200)
    )
}
