/**
 * @module Runs and their steps as recorded in the database, written by the run's activities and read by the API.
 *
 * A step is written once per position (`UNIQUE (run_id, position)`, insert-or-ignore): a retried activity finds the
 * step its first attempt recorded and answers from it instead of acting again. Positions: 0 the plan (the
 * configuration the run uses, captured once so a PATCH during a run cannot change it halfway), 1 the context, 2 the
 * agent's decision, 3… one per action in configured order.
 */
import type { AgentRun, AgentRunStep, Prisma } from '../../../generated/prisma/client.ts'
import type { AgentRunStepStatus } from '../../../generated/prisma/enums.ts'
import type { UnitOfWork } from '../../../infra/unit-of-work.ts'
import { notFound } from '../../errors.ts'
import { newId } from '../../ids.ts'
import { keysetOrderBy, keysetWhere, parseList, toSortedPage, type SortParam } from '../../listing.ts'

export type { AgentRun, AgentRunStep }

export const PLAN_POSITION = 0
export const CONTEXT_POSITION = 1
export const AGENT_POSITION = 2
export const FIRST_ACTION_POSITION = 3

export type StepKind = 'PLAN' | 'CONTEXT' | 'AGENT' | 'ACTION'

export interface StepRecord {
  kind: StepKind
  name: string
  status: AgentRunStepStatus
  output: Record<string, unknown>
  reason?: string
}

/**
 * Records a step unless its position was recorded before.
 * @returns the step as stored (the earlier one on a retry)
 */
export async function recordStep(
  uow: UnitOfWork,
  runId: string,
  position: number,
  step: StepRecord
): Promise<AgentRunStep> {
  await uow.tx.agentRunStep.createMany({
    data: [
      {
        id: newId('agentRunStep'),
        tenantId: uow.tenantId,
        runId,
        position,
        kind: step.kind,
        name: step.name,
        status: step.status,
        output: step.output as Prisma.InputJsonObject,
        reason: step.reason ?? null,
      },
    ],
    skipDuplicates: true,
  })
  return uow.tx.agentRunStep.findUniqueOrThrow({ where: { runId_position: { runId, position } } })
}

/** The step recorded at a position, if any. */
export const stepAt = (uow: UnitOfWork, runId: string, position: number) =>
  uow.tx.agentRunStep.findUnique({ where: { runId_position: { runId, position } } })

/** One run of the unit's tenant with its steps in order. @throws AppError `not_found` */
export async function getRun({ tx, tenantId }: UnitOfWork, id: string) {
  const run = await tx.agentRun.findFirst({
    where: { id, tenantId },
    include: { steps: { orderBy: { position: 'asc' } } },
  })
  if (!run) throw notFound('agent run', id)
  return run
}

export const RUN_SORTS = ['createdAt'] as const

export interface RunListQuery {
  limit: number
  cursor?: string
  sort: SortParam<(typeof RUN_SORTS)[number]>
  status?: AgentRun['status']
}

/** A page of a workflow's runs (the caller checked the workflow is the tenant's). */
export async function listRuns({ tx, tenantId }: UnitOfWork, agentWorkflowId: string, query: RunListQuery) {
  const page = parseList(query)
  const rows = await tx.agentRun.findMany({
    where: {
      AND: [
        { tenantId, agentWorkflowId },
        ...(query.status ? [{ status: query.status }] : []),
        keysetWhere(page) as Prisma.AgentRunWhereInput,
      ],
    },
    orderBy: keysetOrderBy(page),
    take: page.limit + 1,
  })
  return toSortedPage(rows, page)
}
