/**
 * @module `GET /v1/reconciliation/findings` and `POST /v1/reconciliation/findings/{id}/resolve` (docs/payments.md,
 * "Reconciliation"): the tenant's findings, newest first by default, filtered by status, kind and object type, in
 * keyset pages; and an operator marking one resolved once they have dealt with it (a refund made in the Dashboard,
 * a payment corrected). Resolving changes no money; the next run that finds the same difference opens it again.
 */
import type {
  ReconciliationFindingKind,
  ReconciliationFindingStatus,
  ReconciliationObjectType,
} from '../../generated/prisma/enums.ts'
import type { UnitOfWork } from '../../infra/unit-of-work.ts'
import { invalidStateTransition, notFound } from '../errors.ts'
import { findPage, parseList, type SortParam } from '../listing.ts'

export const FINDING_SORTS = ['createdAt'] as const
export type FindingSortField = (typeof FINDING_SORTS)[number]

export interface ListFindingsQuery {
  limit: number
  cursor?: string
  sort: SortParam<FindingSortField>
  status?: ReconciliationFindingStatus
  kind?: ReconciliationFindingKind
  objectType?: ReconciliationObjectType
}

/** A page of findings. @throws AppError `validation_error` for a bad cursor */
export async function listFindings({ tx, tenantId }: UnitOfWork, query: ListFindingsQuery) {
  const filters = [{ tenantId, status: query.status, kind: query.kind, objectType: query.objectType }]
  return findPage(parseList(query), filters, (args) => tx.reconciliationFinding.findMany(args))
}

/** One finding. @throws AppError `not_found` */
export async function getFinding({ tx, tenantId }: UnitOfWork, id: string) {
  const finding = await tx.reconciliationFinding.findFirst({ where: { tenantId, id } })
  if (!finding) throw notFound('reconciliation finding', id)
  return finding
}

/**
 * Marks an OPEN finding RESOLVED.
 * @throws AppError `not_found`, `invalid_state_transition` (already resolved)
 */
export async function resolveFinding(uow: UnitOfWork, id: string, now: Date) {
  const { tx, tenantId } = uow
  const updated = await tx.reconciliationFinding.updateMany({
    where: { tenantId, id, status: 'OPEN' },
    data: { status: 'RESOLVED', resolvedAt: now },
  })
  const finding = await getFinding(uow, id)
  if (updated.count === 0) {
    throw invalidStateTransition(
      `Finding ${id} is already RESOLVED; a run that finds the same difference again opens it again.`
    )
  }
  return finding
}
