/** @module /v1/assessments: thin handlers over the assessment service. */
import { OpenAPIHono, type z } from '@hono/zod-openapi'
import type { AssessmentNotification as NotificationRow } from '../../../generated/prisma/client.ts'
import type { AssessmentWithNext } from '../../../domain/assessments/assessment-store.ts'
import { calendarDateOf } from '../../../domain/assessments/reminder-steps.ts'
import type { AppDeps, AppEnv } from '../../app-env.ts'
import { validationHook } from '../../openapi/validation-hook.ts'
import {
  cancelAssessmentRoute,
  completeAssessmentRoute,
  createAssessmentRoute,
  getAssessmentRoute,
  listAssessmentsRoute,
  listNotificationsRoute,
  patchAssessmentRoute,
  type Assessment,
  type AssessmentNotification,
} from './assessments.routes.ts'

type AssessmentBody = z.infer<typeof Assessment>

export const toAssessment = (a: AssessmentWithNext): AssessmentBody => ({
  id: a.id,
  childId: a.childId,
  providerId: a.providerId,
  instrument: a.instrument,
  status: a.status,
  dueDate: a.dueDate ? calendarDateOf(a.dueDate) : null,
  reassessmentCadenceDays: a.reassessmentCadenceDays,
  scores: (a.scores as AssessmentBody['scores']) ?? null,
  completedAt: a.completedAt?.toISOString() ?? null,
  cancelledAt: a.cancelledAt?.toISOString() ?? null,
  previousAssessmentId: a.previousAssessmentId,
  nextAssessmentId: a.next?.id ?? null,
  createdAt: a.createdAt.toISOString(),
  updatedAt: a.updatedAt.toISOString(),
})

const toNotification = (n: NotificationRow): z.infer<typeof AssessmentNotification> => ({
  id: n.id,
  assessmentId: n.assessmentId,
  kind: n.kind,
  dueDate: calendarDateOf(n.dueDate),
  daysFromDue: n.daysFromDue,
  recipientProviderId: n.recipientProviderId,
  createdAt: n.createdAt.toISOString(),
})

export function assessmentRoutes({ assessments }: Pick<AppDeps, 'assessments'>) {
  return new OpenAPIHono<AppEnv>({ defaultHook: validationHook })
    .openapi(createAssessmentRoute, async (c) => {
      const assessment = await assessments.create(c.var.uow, c.req.valid('json'))
      c.header('Location', `/v1/assessments/${assessment.id}`)
      return c.json(toAssessment(assessment), 201)
    })
    .openapi(listAssessmentsRoute, async (c) => {
      const page = await assessments.list(c.var.uow, c.req.valid('query'))
      return c.json({ data: page.data.map(toAssessment), nextCursor: page.nextCursor }, 200)
    })
    .openapi(getAssessmentRoute, async (c) =>
      c.json(toAssessment(await assessments.get(c.var.uow, c.req.valid('param').id)), 200)
    )
    .openapi(patchAssessmentRoute, async (c) =>
      c.json(toAssessment(await assessments.patch(c.var.uow, c.req.valid('param').id, c.req.valid('json'))), 200)
    )
    .openapi(cancelAssessmentRoute, async (c) =>
      c.json(toAssessment(await assessments.cancel(c.var.uow, c.req.valid('param').id)), 200)
    )
    .openapi(completeAssessmentRoute, async (c) =>
      c.json(toAssessment(await assessments.complete(c.var.uow, c.req.valid('param').id, c.req.valid('json'))), 200)
    )
    .openapi(listNotificationsRoute, async (c) => {
      const page = await assessments.listNotifications(c.var.uow, c.req.valid('param').id, c.req.valid('query'))
      return c.json({ data: page.data.map(toNotification), nextCursor: page.nextCursor }, 200)
    })
}
