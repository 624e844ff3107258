/** @module A provider's onboarding: thin handlers over domain/provider-onboarding/onboarding-service.ts. */
import { OpenAPIHono, type z } from '@hono/zod-openapi'
import {
  listOnboardingNotifications,
  type OnboardingService,
} from '../../../domain/provider-onboarding/onboarding-service.ts'
import type { OnboardingAction } from '../../../domain/provider-onboarding/onboarding-workflow-calls.ts'
import type { AppDeps, AppEnv } from '../../app-env.ts'
import { validationHook } from '../../openapi/validation-hook.ts'
import { toCareNotification } from '../../openapi/care-notification-schema.ts'
import {
  approveOnboardingRoute,
  backgroundCheckRoute,
  cancelOnboardingRoute,
  confirmProfileRoute,
  getOnboardingRoute,
  listOnboardingNotificationsRoute,
  rejectOnboardingRoute,
  retryLicenceRoute,
  startOnboardingRoute,
  submitDocumentsRoute,
  type ProviderOnboarding,
} from './provider-onboarding.routes.ts'

type Body = z.infer<typeof ProviderOnboarding>
const iso = (d: Date | null) => d?.toISOString() ?? null

const toOnboarding = (v: Awaited<ReturnType<OnboardingService['view']>>): Body => ({
  providerId: v.providerId,
  status: v.status,
  step: v.step,
  attempt: v.attempt,
  providerStatus: v.providerStatus,
  stepStartedAt: v.stepStartedAt.toISOString(),
  stepDeadlineAt: iso(v.stepDeadlineAt),
  nextReminderAt: iso(v.nextReminderAt),
  profileConfirmedAt: iso(v.profileConfirmedAt),
  documents: v.documents as Body['documents'],
  documentsSubmittedAt: iso(v.documentsSubmittedAt),
  licenceVerification: (v.licenceVerification ?? null) as Body['licenceVerification'],
  licenceVerifiedAt: iso(v.licenceVerifiedAt),
  backgroundCheck: (v.backgroundCheck ?? null) as Body['backgroundCheck'],
  backgroundCheckCompletedAt: iso(v.backgroundCheckCompletedAt),
  decisionNote: v.decisionNote,
  startedAt: v.startedAt.toISOString(),
  closedAt: iso(v.closedAt),
  workflowId: v.workflowId,
})

export function providerOnboardingRoutes(deps: Pick<AppDeps, 'clock' | 'onboarding'>): OpenAPIHono<AppEnv> {
  const { onboarding } = deps
  /** Every step endpoint: the workflow accepts or refuses the action, and the answer is the onboarding after it. */
  const step = async (uow: AppEnv['Variables']['uow'], providerId: string, action: OnboardingAction) =>
    toOnboarding(await onboarding.act(uow, providerId, action, deps.clock()))
  return new OpenAPIHono<AppEnv>({ defaultHook: validationHook })
    .openapi(startOnboardingRoute, async (c) => {
      const started = await onboarding.start(c.var.uow, c.req.valid('param').id, deps.clock())
      c.header('Location', `/v1/providers/${started.providerId}/onboarding`)
      return c.json(toOnboarding(started), 201)
    })
    .openapi(getOnboardingRoute, async (c) =>
      c.json(toOnboarding(await onboarding.view(c.var.uow, c.req.valid('param').id)), 200)
    )
    .openapi(confirmProfileRoute, async (c) =>
      c.json(await step(c.var.uow, c.req.valid('param').id, { action: 'confirmProfile' }), 200)
    )
    .openapi(submitDocumentsRoute, async (c) => {
      const { documents } = c.req.valid('json')
      return c.json(await step(c.var.uow, c.req.valid('param').id, { action: 'submitDocuments', documents }), 200)
    })
    .openapi(retryLicenceRoute, async (c) =>
      c.json(await step(c.var.uow, c.req.valid('param').id, { action: 'retryLicenceVerification' }), 200)
    )
    .openapi(backgroundCheckRoute, async (c) => {
      const result = c.req.valid('json')
      return c.json(await step(c.var.uow, c.req.valid('param').id, { action: 'recordBackgroundCheck', result }), 200)
    })
    .openapi(approveOnboardingRoute, async (c) =>
      c.json(await step(c.var.uow, c.req.valid('param').id, { action: 'approve' }), 200)
    )
    .openapi(rejectOnboardingRoute, async (c) => {
      const { reason } = c.req.valid('json')
      return c.json(await step(c.var.uow, c.req.valid('param').id, { action: 'reject', reason }), 200)
    })
    .openapi(cancelOnboardingRoute, async (c) =>
      c.json(toOnboarding(await onboarding.cancel(c.var.uow, c.req.valid('param').id, deps.clock())), 200)
    )
    .openapi(listOnboardingNotificationsRoute, async (c) => {
      const page = await listOnboardingNotifications(c.var.uow, c.req.valid('param').id, c.req.valid('query'))
      return c.json({ data: page.data.map(toCareNotification), nextCursor: page.nextCursor }, 200)
    })
}
