/** @module /v1/reconciliation: thin handlers over the reconciliation's findings and runs (domain/reconciliation). */
import { OpenAPIHono, type z } from '@hono/zod-openapi'
import { AppError } from '../../../domain/errors.ts'
import { listFindings, resolveFinding } from '../../../domain/reconciliation/finding-list.ts'
import { requestReconciliationRun } from '../../../domain/reconciliation/reconciliation-runs.ts'
import type { AppDeps, AppEnv } from '../../app-env.ts'
import { validationHook } from '../../openapi/validation-hook.ts'
import { createRunRoute, listFindingsRoute, resolveFindingRoute, type Finding } from './reconciliation.routes.ts'

type FindingRow = Awaited<ReturnType<typeof resolveFinding>>
type FindingSide = z.infer<typeof Finding>['ours']

/** A side as recorded (JSON written by `recordFinding`): amount, currency and status where known. */
function toSide(value: unknown): FindingSide {
  if (typeof value !== 'object' || value === null) return null
  const { amount, currency, status } = value as Record<string, unknown>
  return {
    ...(typeof amount === 'number' ? { amount } : {}),
    ...(typeof currency === 'string' ? { currency } : {}),
    ...(typeof status === 'string' ? { status } : {}),
  }
}

const toFinding = (f: FindingRow): z.infer<typeof Finding> => ({
  id: f.id,
  kind: f.kind,
  objectType: f.objectType,
  objectId: f.objectId,
  processorReference: f.processorReference,
  ours: toSide(f.ours),
  theirs: toSide(f.theirs),
  detail: f.detail,
  status: f.status,
  runId: f.runId,
  occurrences: f.occurrences,
  lastSeenAt: f.lastSeenAt.toISOString(),
  resolvedAt: f.resolvedAt?.toISOString() ?? null,
  createdAt: f.createdAt.toISOString(),
  updatedAt: f.updatedAt.toISOString(),
})

const notConfigured = () =>
  new AppError(409, 'processor_not_configured', 'Processor not configured', {
    detail:
      'This deployment has no online payment processor (ONLINE_PAYMENT_PROCESSOR): there is nothing to reconcile.',
  })

export function reconciliationRoutes({
  clock,
  outbox,
  onlinePayments,
  config,
  temporal,
}: Pick<AppDeps, 'clock' | 'outbox' | 'onlinePayments' | 'config' | 'temporal'>) {
  return new OpenAPIHono<AppEnv>({ defaultHook: validationHook })
    .openapi(listFindingsRoute, async (c) => {
      const page = await listFindings(c.var.uow, c.req.valid('query'))
      return c.json({ data: page.data.map(toFinding), nextCursor: page.nextCursor }, 200)
    })
    .openapi(resolveFindingRoute, async (c) =>
      c.json(toFinding(await resolveFinding(c.var.uow, c.req.valid('param').id, clock())), 200)
    )
    .openapi(createRunRoute, async (c) => {
      if (!onlinePayments) throw notConfigured()
      const body = c.req.valid('json')
      const run = await requestReconciliationRun(
        c.var.uow,
        outbox,
        temporal,
        {
          createdFrom: body.createdFrom === undefined ? undefined : new Date(body.createdFrom),
          createdTo: body.createdTo === undefined ? undefined : new Date(body.createdTo),
        },
        {
          now: clock(),
          windowHours: config.RECONCILIATION_WINDOW_HOURS,
          runsPerHour: config.RECONCILIATION_RUNS_PER_TENANT_PER_HOUR,
        }
      )
      return c.json(
        {
          workflowId: run.workflowId,
          createdFrom: run.createdFrom.toISOString(),
          createdTo: run.createdTo.toISOString(),
          eventsUnavailableBefore: run.eventsUnavailableBefore?.toISOString() ?? null,
        },
        202
      )
    })
}
