/** @module /v1/providers: thin handlers over the provider service, its onboarding operations and its time off. */
import { OpenAPIHono, type RouteHandler, type z } from '@hono/zod-openapi'
import { transitionProvider, type OnboardingAction } from '../../../domain/provider-onboarding/onboarding-status.ts'
import {
  createProvider,
  getProvider,
  listProviders,
  updateProvider,
  type ProviderView,
} from '../../../domain/providers/provider-service.ts'
import type { AppDeps, AppEnv } from '../../app-env.ts'
import { validationHook } from '../../openapi/validation-hook.ts'
import {
  approveProviderRoute,
  createProviderRoute,
  getProviderRoute,
  listProvidersRoute,
  offboardProviderRoute,
  submitProviderForReviewRoute,
  suspendProviderRoute,
  updateProviderRoute,
  type Provider,
} from './providers.routes.ts'
import { timeOffRoutes } from './time-off.ts'

export const toProvider = (p: ProviderView): z.infer<typeof Provider> => ({
  id: p.id,
  name: p.name,
  email: p.email,
  timeZone: p.timeZone,
  locationId: p.locationId,
  locationIds: p.locationIds,
  disciplines: p.disciplines as z.infer<typeof Provider>['disciplines'],
  languages: p.languages,
  ageGroups: p.ageGroups as z.infer<typeof Provider>['ageGroups'],
  telehealth: p.telehealth,
  weeklyHours: p.weeklyHours,
  credentials: p.credentials,
  licenceExpiresOn: p.licenceExpiresOn ? p.licenceExpiresOn.toISOString().slice(0, 10) : null,
  onboardingStatus: p.onboardingStatus,
  bookable: p.onboardingStatus === 'APPROVED',
  approvedAt: p.approvedAt?.toISOString() ?? null,
  offboardedAt: p.offboardedAt?.toISOString() ?? null,
  createdAt: p.createdAt.toISOString(),
  updatedAt: p.updatedAt.toISOString(),
})

export function providerRoutes({ clock }: Pick<AppDeps, 'clock'>) {
  // The four onboarding operations share one route shape (onboardingRoute in providers.routes.ts).
  const onboarding =
    (action: OnboardingAction): RouteHandler<typeof approveProviderRoute, AppEnv> =>
    async (c) =>
      c.json(toProvider(await transitionProvider(c.var.uow, c.req.valid('param').id, action, clock())), 200)
  return new OpenAPIHono<AppEnv>({ defaultHook: validationHook })
    .openapi(createProviderRoute, async (c) => {
      const provider = await createProvider(c.var.uow, c.req.valid('json'), clock())
      c.header('Location', `/v1/providers/${provider.id}`)
      return c.json(toProvider(provider), 201)
    })
    .openapi(listProvidersRoute, async (c) => {
      const page = await listProviders(c.var.uow, c.req.valid('query'))
      return c.json({ data: page.data.map(toProvider), nextCursor: page.nextCursor }, 200)
    })
    .openapi(getProviderRoute, async (c) =>
      c.json(toProvider(await getProvider(c.var.uow, c.req.valid('param').id)), 200)
    )
    .openapi(updateProviderRoute, async (c) => {
      const provider = await updateProvider(c.var.uow, c.req.valid('param').id, c.req.valid('json'))
      return c.json(toProvider(provider), 200)
    })
    .openapi(submitProviderForReviewRoute, onboarding('submitForReview'))
    .openapi(approveProviderRoute, onboarding('approve'))
    .openapi(suspendProviderRoute, onboarding('suspend'))
    .openapi(offboardProviderRoute, onboarding('offboard'))
    .route('/', timeOffRoutes())
}
