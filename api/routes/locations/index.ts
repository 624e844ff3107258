/** @module /v1/locations: thin handlers over the location service. */
import { OpenAPIHono, type z } from '@hono/zod-openapi'
import {
  createLocation,
  deleteLocation,
  getLocation,
  listLocations,
  updateLocation,
  type LocationRow,
} from '../../../domain/locations/location-service.ts'
import type { AppEnv } from '../../app-env.ts'
import { validationHook } from '../../openapi/validation-hook.ts'
import {
  createLocationRoute,
  deleteLocationRoute,
  getLocationRoute,
  listLocationsRoute,
  updateLocationRoute,
  type Location,
} from './locations.routes.ts'

export const toLocation = (l: LocationRow): z.infer<typeof Location> => ({
  id: l.id,
  name: l.name,
  timeZone: l.timeZone,
  currency: l.currency,
  bufferMinutes: l.bufferMinutes,
  minimumNoticeMinutes: l.minimumNoticeMinutes,
  lateCancellationHours: l.lateCancellationHours,
  reminderOffsetsMinutes: l.reminderOffsetsMinutes,
  noteDueHours: l.noteDueHours,
  addressLine1: l.addressLine1,
  addressLine2: l.addressLine2,
  city: l.city,
  region: l.region,
  postalCode: l.postalCode,
  country: l.country,
  createdAt: l.createdAt.toISOString(),
  updatedAt: l.updatedAt.toISOString(),
})

export function locationRoutes() {
  return new OpenAPIHono<AppEnv>({ defaultHook: validationHook })
    .openapi(createLocationRoute, async (c) => {
      const location = await createLocation(c.var.uow, c.req.valid('json'))
      c.header('Location', `/v1/locations/${location.id}`)
      return c.json(toLocation(location), 201)
    })
    .openapi(listLocationsRoute, async (c) => {
      const page = await listLocations(c.var.uow, c.req.valid('query'))
      return c.json({ data: page.data.map(toLocation), nextCursor: page.nextCursor }, 200)
    })
    .openapi(getLocationRoute, async (c) =>
      c.json(toLocation(await getLocation(c.var.uow, c.req.valid('param').id)), 200)
    )
    .openapi(updateLocationRoute, async (c) => {
      const location = await updateLocation(c.var.uow, c.req.valid('param').id, c.req.valid('json'))
      return c.json(toLocation(location), 200)
    })
    .openapi(deleteLocationRoute, async (c) => {
      await deleteLocation(c.var.uow, c.req.valid('param').id)
      return c.body(null, 204)
    })
}
