/**
 * @module Marketplace settlements as the API sees them (`/v1/marketplace/settlements`, spec row 11): asking for one
 * records a PENDING run and starts its workflow through the outbox in the same transaction; reading one reports its
 * status and every provider's outcome. One run per distinct request (currency, period, providers): asking again
 * answers the same run, and restarts it when it failed. Periods of one currency never partly overlap, so each
 * provider's settlements form one sequence of periods.
 */
import { createHash } from 'node:crypto'
import type { Prisma } from '../../generated/prisma/client.ts'
import type { SettlementStatus } from '../../generated/prisma/enums.ts'
import type { UnitOfWork } from '../../infra/unit-of-work.ts'
import {
  SETTLEMENT_KIND,
  SETTLEMENT_WORKFLOW,
  settlementWorkflowId,
  type SettlementWorkflowInput,
} from '../../common/settlements/settlement-contract.ts'
import { conflict, notFound, validationError, type FieldError } from '../errors.ts'
import { newId } from '../ids.ts'
import { keysetOrderBy, keysetWhere, parseList, toSortedPage, type SortParam } from '../listing.ts'
import { isCurrency } from '../pricing/currencies.ts'
import type { WorkflowOutbox } from '../workflow-runs/workflow-outbox.ts'
import { DAY_MS } from '../../common/time/calendar.ts'

/** Longest period one settlement covers. */
export const MAX_PERIOD_DAYS = 366

export const SETTLEMENT_SORTS = ['createdAt', 'periodEnd'] as const
export const SETTLEMENT_STATUSES = ['PENDING', 'RUNNING', 'COMPLETED', 'FAILED'] as const

export interface SettlementRequest {
  currency: string
  periodStart: Date
  periodEnd: Date
  /** Empty or absent: every provider with something to settle. */
  providerIds?: string[]
}

const withResults = {
  results: {
    // The settlement's own entry; those of its payout's transfers (payoutTransferId) are the money following it.
    include: {
      providerSettlement: { include: { entries: { where: { payoutTransferId: null }, select: { id: true } } } },
    },
    orderBy: { providerId: 'asc' },
  },
} as const satisfies Prisma.SettlementInclude

export type SettlementRecord = Prisma.SettlementGetPayload<{ include: typeof withResults }>

/** The key of a request: equal requests are one run. */
export function requestKeyOf(r: {
  currency: string
  periodStart: Date
  periodEnd: Date
  providerIds: string[]
}): string {
  const providers = r.providerIds.length ? r.providerIds.join(',') : '*'
  return createHash('sha256')
    .update(`${r.currency}|${r.periodStart.toISOString()}|${r.periodEnd.toISOString()}|${providers}`)
    .digest('hex')
}

async function checkRequest(uow: UnitOfWork, r: SettlementRequest, now: Date): Promise<string[]> {
  const errors: FieldError[] = []
  if (!isCurrency(r.currency))
    errors.push({ path: 'currency', code: 'unknown_currency', message: 'Not an ISO 4217 currency code.' })
  const start = r.periodStart.getTime()
  const end = r.periodEnd.getTime()
  if (end <= start)
    errors.push({ path: 'periodEnd', code: 'before_start', message: 'periodEnd must be after periodStart.' })
  else if (end - start > MAX_PERIOD_DAYS * DAY_MS) {
    errors.push({
      path: 'periodEnd',
      code: 'range_too_long',
      message: `A period covers at most ${MAX_PERIOD_DAYS} days.`,
    })
  }
  if (end > now.getTime()) {
    errors.push({
      path: 'periodEnd',
      code: 'period_not_closed',
      message: 'Only a period that has ended can be settled.',
    })
  }
  const providerIds = [...new Set(r.providerIds ?? [])].sort()
  if (providerIds.length) {
    const found = await uow.tx.provider.findMany({
      where: { tenantId: uow.tenantId, id: { in: providerIds } },
      select: { id: true },
    })
    const known = new Set(found.map((p) => p.id))
    for (const id of providerIds) {
      if (!known.has(id))
        errors.push({
          path: `providerIds.${(r.providerIds ?? []).indexOf(id)}`,
          code: 'not_found',
          message: 'No provider with this id.',
        })
    }
  }
  if (errors.length) throw validationError(errors)
  return providerIds
}

async function enqueueRun(uow: UnitOfWork, outbox: WorkflowOutbox, settlementId: string, restart: boolean) {
  const input: SettlementWorkflowInput = { tenantId: uow.tenantId, settlementId }
  await outbox.enqueue(uow, {
    workflowType: SETTLEMENT_WORKFLOW,
    workflowId: settlementWorkflowId(settlementId),
    args: [input],
    searchAttributes: { TenantId: uow.tenantId, WorkflowKind: SETTLEMENT_KIND },
    summary: `Marketplace settlement ${settlementId}`,
    restart,
  })
}

/**
 * Asks for a settlement.
 * @returns the run, and whether work was started (a new run, or a failed one started again)
 * @throws AppError `validation_error` (currency, period, providers), `conflict` (a period partly overlapping another)
 */
export async function requestSettlement(
  uow: UnitOfWork,
  outbox: WorkflowOutbox,
  request: SettlementRequest,
  now: Date
): Promise<{ settlement: SettlementRecord; started: boolean }> {
  const { tx, tenantId } = uow
  const providerIds = await checkRequest(uow, request, now)
  const { currency, periodStart, periodEnd } = request
  // Requests of one currency decide one after another, so two overlapping periods cannot both pass the check.
  await tx.$executeRaw`SELECT pg_advisory_xact_lock(hashtext(${`settlement:${tenantId}:${currency}`}))`
  const requestKey = requestKeyOf({ currency, periodStart, periodEnd, providerIds })
  const existing = await tx.settlement.findUnique({ where: { tenantId_requestKey: { tenantId, requestKey } } })
  if (existing) {
    if (existing.status !== 'FAILED') return { settlement: await getSettlement(uow, existing.id), started: false }
    await tx.settlement.update({
      where: { id: existing.id },
      data: { status: 'PENDING', failureReason: null, failedAt: null },
    })
    await enqueueRun(uow, outbox, existing.id, true)
    return { settlement: await getSettlement(uow, existing.id), started: true }
  }
  const overlapping = await tx.settlement.findFirst({
    where: {
      tenantId,
      currency,
      periodStart: { lt: periodEnd },
      periodEnd: { gt: periodStart },
      NOT: { periodStart, periodEnd },
    },
    select: { id: true, periodStart: true, periodEnd: true },
  })
  if (overlapping) {
    throw conflict(
      `The period overlaps settlement ${overlapping.id} (${overlapping.periodStart.toISOString()} to ` +
        `${overlapping.periodEnd.toISOString()}); settle the same period or one that does not overlap it.`
    )
  }
  const id = newId('settlement')
  await tx.settlement.create({
    data: {
      id,
      tenantId,
      currency,
      periodStart,
      periodEnd,
      providerIds,
      requestKey,
      workflowId: settlementWorkflowId(id),
    },
  })
  await enqueueRun(uow, outbox, id, false)
  return { settlement: await getSettlement(uow, id), started: true }
}

/** One settlement with its provider outcomes. @throws AppError `not_found` */
export async function getSettlement({ tx, tenantId }: UnitOfWork, id: string): Promise<SettlementRecord> {
  const settlement = await tx.settlement.findFirst({ where: { id, tenantId }, include: withResults })
  if (!settlement) throw notFound('settlement', id)
  return settlement
}

export interface SettlementListQuery {
  limit: number
  cursor?: string
  sort: SortParam<(typeof SETTLEMENT_SORTS)[number]>
  status?: SettlementStatus
  currency?: string
}

/** A page of the tenant's settlements. */
export async function listSettlements({ tx, tenantId }: UnitOfWork, query: SettlementListQuery) {
  const list = parseList(query)
  const filters: Prisma.SettlementWhereInput[] = [
    { tenantId },
    ...(query.status ? [{ status: query.status }] : []),
    ...(query.currency ? [{ currency: query.currency }] : []),
  ]
  const rows = await tx.settlement.findMany({
    where: { AND: [...filters, keysetWhere(list) as Prisma.SettlementWhereInput] },
    orderBy: keysetOrderBy(list),
    take: list.limit + 1,
    include: withResults,
  })
  return toSortedPage(rows, list)
}
