/** @module A child's progress follow-up: thin handlers over domain/child-progress/progress-follow-ups.ts. */
import { OpenAPIHono, type z } from '@hono/zod-openapi'
import type { ChildProgressReport } from '../../../generated/prisma/client.ts'
import type { ProgressFollowUps } from '../../../domain/child-progress/progress-follow-ups.ts'
import type { AppDeps, AppEnv } from '../../app-env.ts'
import { validationHook } from '../../openapi/validation-hook.ts'
import { toCareNotification } from '../../openapi/care-notification-schema.ts'
import {
  getProgressRoute,
  listReportsRoute,
  requestReportRoute,
  stopFollowUpRoute,
  type ChildProgress,
  type ProgressReport,
} from './child-progress.routes.ts'

const toReport = (r: ChildProgressReport): z.infer<typeof ProgressReport> => ({
  id: r.id,
  childId: r.childId,
  trigger: r.trigger as z.infer<typeof ProgressReport>['trigger'],
  periodStart: r.periodStart.toISOString(),
  periodEnd: r.periodEnd.toISOString(),
  sessionsCount: r.sessionsCount,
  signedNotesCount: r.signedNotesCount,
  goals: r.goals as z.infer<typeof ProgressReport>['goals'],
  assessments: r.assessments as z.infer<typeof ProgressReport>['assessments'],
  stalledGoalIds: r.stalledGoalIds,
  createdAt: r.createdAt.toISOString(),
})

const toProgress = (v: Awaited<ReturnType<ProgressFollowUps['view']>>): z.infer<typeof ChildProgress> => ({
  childId: v.childId,
  workflowId: v.workflowId,
  schedule: v.state,
  latestReport: v.latest ? toReport(v.latest) : null,
  openFollowUp: v.followUp ? toCareNotification(v.followUp) : null,
})

/** The router; `progress` is the same follow-ups the children routes start and stop (registration, archive). */
export function childProgressRoutes(deps: Pick<AppDeps, 'clock' | 'progress'>): OpenAPIHono<AppEnv> {
  const { progress } = deps
  return new OpenAPIHono<AppEnv>({ defaultHook: validationHook })
    .openapi(getProgressRoute, async (c) =>
      c.json(toProgress(await progress.view(c.var.uow, c.req.valid('param').id)), 200)
    )
    .openapi(listReportsRoute, async (c) => {
      const page = await progress.listReports(c.var.uow, c.req.valid('param').id, c.req.valid('query'))
      return c.json({ data: page.data.map(toReport), nextCursor: page.nextCursor }, 200)
    })
    .openapi(requestReportRoute, async (c) => {
      const report = await progress.requestSummary(c.var.uow, c.req.valid('param').id, deps.clock())
      return c.json(toReport(report), 201)
    })
    .openapi(stopFollowUpRoute, async (c) => {
      return c.json(toProgress(await progress.stop(c.var.uow, c.req.valid('param').id, deps.clock())), 200)
    })
}
